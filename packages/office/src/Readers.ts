/** The office readers, one `Reader` per family of formats, as the pipeline registers them. */
import type { Reader } from "@strata/core"
import { Effect } from "effect"
import { withImageOcr, type ImageOcrOptions } from "./ImageOcr.ts"
import { readWord } from "./DocxReader.ts"
import { makeReader, page } from "./ReaderKit.ts"
import { readXlsx } from "./XlsxReader.ts"
import { readCsv } from "./CsvReader.ts"
import { readPptx } from "./PptxReader.ts"
import { readOdp, readOds, readOdt } from "./OdfReaders.ts"
import { readEpub } from "./EpubReader.ts"
import { readRtf } from "./RtfReader.ts"
import type { LibreOffice } from "./LibreOffice.ts"
import { missingComponent } from "./Failure.ts"
import { word97Blocks, word97Characters, word97Footnotes } from "./Word97Text.ts"

export const docxReader: Reader = makeReader("docx", ["docx", "docm"], (request) => {
  const doc = readWord(request.bytes, request.format)
  return { info: doc.info, pages: [() => page(1, doc.blocks)] }
})

export const xlsxReader: Reader = makeReader("xlsx", ["xlsx", "xlsm"], (request) => readXlsx(request.bytes, request.format))

// SheetJS costs ~190 ms to import: loaded on the first .xls/.xlsb, not at start-up.
export const binaryWorkbookReader: Reader = makeReader("sheetjs", ["xls", "xlsb"], async (request) =>
  (await import("./SheetJsReader.ts")).readWithSheetJs(request.bytes, request.format))

export const csvReader: Reader = makeReader("csv", ["csv"], (request) => {
  const { blocks, encoding, delimiter } = readCsv(request.bytes, request.format, request.fileName)
  const dialect = `encoding ${encoding}, delimiter ${delimiter === "\t" ? "tab" : JSON.stringify(delimiter)}`
  return { info: { metadata: {} }, pages: [() => page(1, blocks, { diagnostics: [{ severity: "info", code: "csv_dialect", message: dialect }] })] }
})

export const pptxReader: Reader = makeReader("pptx", ["pptx", "pptm"], (request) => readPptx(request.bytes, request.format))

export const odfReader: Reader = makeReader("odf", ["odt", "ods", "odp"], (request) =>
  request.format === "odt" ? readOdt(request.bytes, request.format) : request.format === "ods" ? readOds(request.bytes, request.format) : readOdp(request.bytes, request.format))

export const epubReader: Reader = makeReader("epub", ["epub"], (request) => readEpub(request.bytes, request.format))

export const rtfReader: Reader = makeReader("rtf", ["rtf"], (request) => {
  const doc = readRtf(request.bytes, request.format)
  return { info: { metadata: doc.metadata }, pages: [() => page(1, doc.blocks)] }
})

/** A Word 97 file read as text and tables, when LibreOffice is not installed. */
const word97TextReader: Reader = makeReader("legacy", ["doc"], (request) => {
  const text = word97Characters(request.bytes, request.format)
  const blocks = [...word97Blocks(text.main), ...word97Footnotes(text.footnotes)]
  const warning = { severity: "warning" as const, code: "doc_text_only", message: "LibreOffice is not installed: the .doc was read as text and tables only (no headings, lists or emphasis)" }
  return { info: { metadata: {} }, pages: [() => page(1, blocks, { diagnostics: [warning] })] }
})

/** The OOXML a legacy file was converted to, read by our own readers under the legacy format's name. */
const convertedReader: Reader = makeReader("legacy", ["doc", "ppt"], (request) => {
  if (request.format === "ppt") return readPptx(request.bytes, request.format)
  const doc = readWord(request.bytes, request.format)
  return { info: doc.info, pages: [() => page(1, doc.blocks)] }
})

/**
 * Legacy Word and PowerPoint binaries: `libreOffice` converts, our OOXML readers read. Without
 * LibreOffice (none given, or not installed) a Word 97 file still gives its text and tables.
 */
export const makeLegacyReader = (libreOffice: LibreOffice["Service"] | undefined): Reader => ({
  name: "legacy",
  formats: ["doc", "ppt"],
  read: (request) => {
    if (request.format === "doc" && (libreOffice === undefined || libreOffice.binary === null)) return word97TextReader.read(request)
    if (libreOffice === undefined) {
      return Effect.fail(missingComponent(request.format, "LibreOffice", `reading .${request.format} files needs LibreOffice (soffice) installed on the server; it was not found`))
    }
    const to = request.format === "doc" ? "docx" : "pptx"
    return Effect.flatMap(
      libreOffice.convert(request.bytes, { format: request.format, to, deadline: request.options.deadline }),
      (converted) => convertedReader.read({ ...request, bytes: converted })
    )
  }
})

/** The legacy reader without LibreOffice: .doc as text and tables, .ppt refused. */
export const legacyReader: Reader = makeLegacyReader(undefined)

export interface OfficeReaderOptions extends ImageOcrOptions {
  /** Converts .doc and .ppt (the `LibreOffice` service); absent: .doc is read as text only, .ppt is refused. */
  readonly libreOffice?: LibreOffice["Service"] | undefined
}

/**
 * Every office reader; with an OCR engine, the formats that store pictures (docx, pptx, odt,
 * odp, epub, and doc/ppt through their conversion) recognise them as `mode` asks.
 */
export const makeOfficeReaders = (options: OfficeReaderOptions = {}): ReadonlyArray<Reader> => [
  withImageOcr(docxReader, options),
  xlsxReader,
  binaryWorkbookReader,
  csvReader,
  withImageOcr(pptxReader, options),
  withImageOcr(odfReader, options),
  withImageOcr(epubReader, options),
  rtfReader,
  withImageOcr(makeLegacyReader(options.libreOffice), options)
]

/** The office readers without OCR (pictures by their alt text; `fast` and `auto` warn about scans) or LibreOffice. */
export const officeReaders: ReadonlyArray<Reader> = makeOfficeReaders()
