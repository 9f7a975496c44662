/**
 * Which format a document really is. Content decides first (magic bytes, then a look inside
 * containers: the streams of an OLE2 compound file, the `mimetype` entry or the
 * `[Content_Types].xml` of a ZIP package), the file name's extension and the declared content
 * type second (both looked up in `MediaTypes`), so a `.docx` that is really a PDF is read as a PDF. Text-like bytes are
 * classified as html, csv, json or plain text; binary bytes nobody reads give `undefined`.
 *
 * `TypeDetection` is the stage the pipeline asks; its default layer is `detectFormat`, and a layer
 * of your own (a learned classifier, a site's own rules) replaces it.
 */
import { Context, Effect, Layer } from "effect"
import type { DocumentFormat } from "./DocumentReader.ts"
import { formatOfExtension, formatOfMimeType } from "./MediaTypes.ts"
import type { StageError } from "./stages/StageError.ts"
import { ZipArchive } from "./ZipArchive.ts"

export interface DetectInput {
  readonly bytes: Uint8Array
  readonly fileName?: string | undefined
  readonly contentType?: string | undefined
}

/** The OOXML main-part content types (lower-cased) and what they make the package. */
const mainPartTypes: Array<[string, DocumentFormat]> = [
  ["application/vnd.ms-word.document.macroenabled.main+xml", "docm"],
  ["application/vnd.ms-word.template.macroenabledtemplate.main+xml", "docm"],
  ["application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml", "docx"],
  ["application/vnd.openxmlformats-officedocument.wordprocessingml.template.main+xml", "docx"],
  ["application/vnd.ms-excel.sheet.binary.macroenabled.main", "xlsb"],
  ["application/vnd.ms-excel.sheet.macroenabled.main+xml", "xlsm"],
  ["application/vnd.ms-excel.template.macroenabled.main+xml", "xlsm"],
  ["application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml", "xlsx"],
  ["application/vnd.openxmlformats-officedocument.spreadsheetml.template.main+xml", "xlsx"],
  ["application/vnd.ms-powerpoint.presentation.macroenabled.main+xml", "pptm"],
  ["application/vnd.ms-powerpoint.slideshow.macroenabled.main+xml", "pptm"],
  ["application/vnd.ms-powerpoint.template.macroenabled.main+xml", "pptm"],
  ["application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml", "pptx"],
  ["application/vnd.openxmlformats-officedocument.presentationml.slideshow.main+xml", "pptx"],
  ["application/vnd.openxmlformats-officedocument.presentationml.template.main+xml", "pptx"]
]

const odfTypes: Array<[string, DocumentFormat]> = [
  ["application/vnd.oasis.opendocument.text", "odt"],
  ["application/vnd.oasis.opendocument.spreadsheet", "ods"],
  ["application/vnd.oasis.opendocument.presentation", "odp"],
  ["application/epub+zip", "epub"]
]

export const extensionOf = (fileName: string | undefined): string | undefined => {
  if (fileName === undefined) return undefined
  const base = fileName.split(/[/\\]/).pop() ?? ""
  const dot = base.lastIndexOf(".")
  return dot <= 0 && !base.startsWith(".") ? undefined : base.slice(dot + 1).toLowerCase()
}

const startsWith = (bytes: Uint8Array, signature: ReadonlyArray<number>, at = 0): boolean => {
  if (bytes.length < at + signature.length) return false
  for (let i = 0; i < signature.length; i++) if (bytes[at + i] !== signature[i]) return false
  return true
}

const latin1 = new TextDecoder("latin1")

/** Detects the format of a document; `undefined` when it is binary and of no format we read. */
export const detectFormat = (input: DetectInput): DocumentFormat | undefined => {
  const { bytes } = input
  const ext = extensionOf(input.fileName)
  const hinted = (ext !== undefined ? formatOfExtension(ext) : undefined)
    ?? (input.contentType !== undefined ? formatOfMimeType(input.contentType) : undefined)

  const head = latin1.decode(bytes.subarray(0, 1024))
  if (head.includes("%PDF-")) return "pdf"
  if (startsWith(bytes, [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1])) return detectCompound(bytes, hinted)
  if (startsWith(bytes, [0x50, 0x4b]) && (bytes[2] === 3 || bytes[2] === 5 || bytes[2] === 7)) return detectZip(bytes, hinted)
  if (/^(?:\ufeff|\xef\xbb\xbf)?\s*\{\\rtf/.test(head)) return "rtf"
  if (!looksLikeText(bytes)) return undefined
  const text = decodeHead(bytes)
  if (looksLikeHtml(text)) return hinted === "csv" || hinted === "text" || hinted === "json" ? hinted : "html"
  if (hinted === "csv" || hinted === "json" || hinted === "html" || hinted === "text") return hinted
  // Excel 2003 XML (SpreadsheetML) is read by the binary-workbook reader.
  if (/^\s*(?:<\?xml[^>]*>\s*)?(?:<\?mso-application[^>]*>\s*)?<(?:ss:)?Workbook\b/.test(text.replace(/^\ufeff/, ""))) return "xls"
  // Spreadsheet exports saved as text under a spreadsheet extension are delimited text.
  if (hinted === "xls" || hinted === "xlsx" || hinted === "ods") return "csv"
  const trimmed = text.trimStart()
  if ((trimmed.startsWith("{") || trimmed.startsWith("[")) && isJson(bytes)) return "json"
  return "text"
}

export interface TypeDetector {
  readonly name: string
  /** The content's format; `undefined` when it is none the service reads. */
  readonly detect: (input: DetectInput) => Effect.Effect<DocumentFormat | undefined, StageError>
}

/** The default detector: `detectFormat`. */
export const contentSniffing: TypeDetector = {
  name: "sniff",
  detect: (input) => Effect.sync(() => detectFormat(input))
}

export class TypeDetection extends Context.Service<TypeDetection, TypeDetector>()("@strata/core/TypeDetection") {
  static readonly layer = Layer.succeed(TypeDetection, contentSniffing)
}

// ---- OLE2 compound files -------------------------------------------------------------------

/**
 * Directory entries are 128-byte records in sectors that start at offset 512 + k * sectorSize,
 * so every entry sits at a multiple of 128 from the file start. Checking the UTF-16 name, its
 * length field and the stream type at each such offset finds the streams without following FAT
 * chains (and cannot be sent into a loop by a broken one).
 */
const compoundStreams = (bytes: Uint8Array): Set<string> => {
  const names = new Set<string>()
  for (let at = 512; at + 128 <= bytes.length; at += 128) {
    const nameLength = bytes[at + 64] | (bytes[at + 65] << 8)
    const type = bytes[at + 66]
    if (nameLength < 4 || nameLength > 64 || nameLength % 2 !== 0 || (type !== 1 && type !== 2 && type !== 5)) continue
    if (bytes[at + nameLength - 2] !== 0 || bytes[at + nameLength - 1] !== 0) continue
    let name = ""
    let ok = true
    for (let i = 0; i < nameLength - 2; i += 2) {
      const code = bytes[at + i] | (bytes[at + i + 1] << 8)
      if (code === 0) {
        ok = false
        break
      }
      name += String.fromCharCode(code)
    }
    if (ok) names.add(name)
  }
  return names
}

const detectCompound = (bytes: Uint8Array, hinted: DocumentFormat | undefined): DocumentFormat | undefined => {
  const streams = compoundStreams(bytes)
  if (streams.has("WordDocument")) return "doc"
  if (streams.has("Workbook") || streams.has("Book")) return "xls"
  if (streams.has("PowerPoint Document")) return "ppt"
  // Password-protected OOXML is an OLE2 file holding an EncryptedPackage: the reader reports it as encrypted.
  if (streams.has("EncryptedPackage") && hinted !== undefined && ["docx", "docm", "xlsx", "xlsm", "xlsb", "pptx", "pptm"].includes(hinted)) return hinted
  return undefined
}

// ---- ZIP packages --------------------------------------------------------------------------

/** The formats that are ZIP packages: a package the detector cannot open goes to the reader its name asks for, which says why. */
const zipFormats: ReadonlySet<DocumentFormat> = new Set(["docx", "docm", "xlsx", "xlsm", "xlsb", "pptx", "pptm", "odt", "ods", "odp", "epub"])

/** Parts read to tell packages apart are small; a bigger one is not what we look for. */
const MAX_DETECTION_PART = 256 * 1024

const detectZip = (bytes: Uint8Array, hinted: DocumentFormat | undefined): DocumentFormat | undefined => {
  let zip: ZipArchive
  try {
    // The same reader (and zip-bomb limits) as the office readers; only the directory is read here.
    zip = new ZipArchive(bytes, "zip")
  } catch {
    return hinted !== undefined && zipFormats.has(hinted) ? hinted : undefined
  }
  const part = (name: string): string | undefined => {
    try {
      return zip.text(name, MAX_DETECTION_PART)
    } catch {
      return undefined
    }
  }
  const mimetype = part("mimetype")?.trim().toLowerCase()
  if (mimetype !== undefined) for (const [type, format] of odfTypes) if (mimetype === type || mimetype.startsWith(`${type}-template`)) return format
  const types = part("[Content_Types].xml")?.toLowerCase()
  if (types !== undefined) for (const [type, format] of mainPartTypes) if (types.includes(`"${type}"`)) return format
  const has = (name: string) => zip.has(name)
  const macros = zip.names.some((name) => /vbaproject\.bin$/i.test(name))
  if (has("word/document.xml")) return macros ? "docm" : "docx"
  if (has("xl/workbook.bin")) return "xlsb"
  if (has("xl/workbook.xml")) return macros ? "xlsm" : "xlsx"
  if (has("ppt/presentation.xml")) return macros ? "pptm" : "pptx"
  if (has("META-INF/container.xml") && zip.names.some((name) => /\.opf$/i.test(name))) return "epub"
  if (has("content.xml") && (hinted === "odt" || hinted === "ods" || hinted === "odp")) return hinted
  return undefined
}

// ---- text ----------------------------------------------------------------------------------

const looksLikeText = (bytes: Uint8Array): boolean => {
  if (startsWith(bytes, [0xff, 0xfe]) || startsWith(bytes, [0xfe, 0xff])) return true
  const n = Math.min(bytes.length, 8192)
  let control = 0
  for (let i = 0; i < n; i++) {
    const b = bytes[i]
    if (b === 0) return false
    if (b < 8 || (b > 13 && b < 32 && b !== 27)) control++
  }
  return control <= n * 0.01
}

const decodeHead = (bytes: Uint8Array): string => {
  const slice = bytes.subarray(0, 4096)
  if (startsWith(bytes, [0xff, 0xfe])) return new TextDecoder("utf-16le").decode(slice)
  if (startsWith(bytes, [0xfe, 0xff])) return new TextDecoder("utf-16be").decode(slice)
  return new TextDecoder("utf-8").decode(slice)
}

const looksLikeHtml = (text: string): boolean => {
  const start = text.replace(/^\ufeff/, "").replace(/^\s*(?:<\?xml[^>]*>\s*)?(?:<!--[\s\S]*?-->\s*)*/, "").slice(0, 512).toLowerCase()
  return /^<(?:!doctype\s+html|html|head|body|meta|title|base|link|style|script|div|p|table|h[1-6]|article|section|header|nav|main)[\s>/]/.test(start)
}

const isJson = (bytes: Uint8Array): boolean => {
  if (bytes.length > 50 * 1024 * 1024) return false
  try {
    JSON.parse(new TextDecoder("utf-8").decode(bytes))
    return true
  } catch {
    return false
  }
}
