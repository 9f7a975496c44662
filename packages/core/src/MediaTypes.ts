/**
 * The one table of media types: for every format the service reads, its MIME type (as written in
 * `metadata.contentType` when a response declared none), the other MIME types that name it, and
 * its file extensions. Type detection reads hints from it and routing reads the web types from it.
 */
import type { DocumentFormat } from "./DocumentReader.ts"

export interface MediaType {
  readonly format: DocumentFormat
  /** The registered type, in its registered case. */
  readonly mimeType: string
  /** Other types seen for the format, lower case. */
  readonly aliases: ReadonlyArray<string>
  /** Lower case, without the dot; the first is the format's own (templates and shows follow). */
  readonly extensions: ReadonlyArray<string>
}

/** Web types first, then the documents in the order the unsupported-type message lists them. */
export const mediaTypes: ReadonlyArray<MediaType> = [
  { format: "html", mimeType: "text/html", aliases: ["application/xhtml+xml"], extensions: ["html", "htm", "xhtml"] },
  { format: "json", mimeType: "application/json", aliases: ["text/json"], extensions: ["json"] },
  { format: "text", mimeType: "text/plain", aliases: ["text/markdown"], extensions: ["txt", "text", "md", "markdown"] },
  { format: "pdf", mimeType: "application/pdf", aliases: [], extensions: ["pdf"] },
  {
    format: "docx",
    mimeType: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    aliases: [],
    extensions: ["docx", "dotx"]
  },
  { format: "doc", mimeType: "application/msword", aliases: [], extensions: ["doc", "dot"] },
  { format: "docm", mimeType: "application/vnd.ms-word.document.macroEnabled.12", aliases: [], extensions: ["docm", "dotm"] },
  { format: "odt", mimeType: "application/vnd.oasis.opendocument.text", aliases: [], extensions: ["odt", "ott"] },
  { format: "ods", mimeType: "application/vnd.oasis.opendocument.spreadsheet", aliases: [], extensions: ["ods", "ots"] },
  { format: "odp", mimeType: "application/vnd.oasis.opendocument.presentation", aliases: [], extensions: ["odp", "otp"] },
  { format: "rtf", mimeType: "application/rtf", aliases: ["text/rtf"], extensions: ["rtf"] },
  {
    format: "xlsx",
    mimeType: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    aliases: [],
    extensions: ["xlsx", "xltx"]
  },
  { format: "xls", mimeType: "application/vnd.ms-excel", aliases: [], extensions: ["xls", "xlt"] },
  { format: "xlsm", mimeType: "application/vnd.ms-excel.sheet.macroEnabled.12", aliases: [], extensions: ["xlsm", "xltm"] },
  { format: "xlsb", mimeType: "application/vnd.ms-excel.sheet.binary.macroEnabled.12", aliases: [], extensions: ["xlsb"] },
  {
    format: "pptx",
    mimeType: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    aliases: [],
    extensions: ["pptx", "potx", "ppsx"]
  },
  { format: "ppt", mimeType: "application/vnd.ms-powerpoint", aliases: [], extensions: ["ppt", "pps", "pot"] },
  {
    format: "pptm",
    mimeType: "application/vnd.ms-powerpoint.presentation.macroEnabled.12",
    aliases: [],
    extensions: ["pptm", "potm", "ppsm"]
  },
  { format: "epub", mimeType: "application/epub+zip", aliases: [], extensions: ["epub"] },
  { format: "csv", mimeType: "text/csv", aliases: ["text/tab-separated-values", "application/csv"], extensions: ["csv", "tsv"] }
]

const byFormat = new Map(mediaTypes.map((entry) => [entry.format, entry]))
const byExtension = new Map(mediaTypes.flatMap((entry) => entry.extensions.map((ext) => [ext, entry.format] as const)))
const byMimeType = new Map(
  mediaTypes.flatMap((entry) => [entry.mimeType.toLowerCase(), ...entry.aliases].map((type) => [type, entry.format] as const))
)

/** The format a file extension (lower case, no dot) names. */
export const formatOfExtension = (extension: string): DocumentFormat | undefined => byExtension.get(extension)

/** The format a declared Content-Type names; parameters and case are ignored. */
export const formatOfMimeType = (contentType: string): DocumentFormat | undefined =>
  byMimeType.get(contentType.split(";")[0].trim().toLowerCase())

/** The format's registered MIME type. */
export const mimeTypeOf = (format: DocumentFormat): string => byFormat.get(format)?.mimeType ?? "application/octet-stream"

/** The document formats' own extensions, as the unsupported-type message lists them. */
export const documentExtensions: ReadonlyArray<string> = mediaTypes
  .filter((entry) => entry.format !== "html" && entry.format !== "json" && entry.format !== "text")
  .map((entry) => entry.extensions[0])
