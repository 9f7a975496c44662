/** The office readers, one `Reader` per family of formats, as the pipeline registers them. */
import type { Reader } from "@strata/core"
import { withImageOcr, type ImageOcrOptions } from "./ImageOcr.ts"
import { readWord } from "./DocxReader.ts"
import { makeReader, page } from "./ReaderKit.ts"
import { readXlsx } from "./XlsxReader.ts"
import { readCsv } from "./CsvReader.ts"
import { readPptx } from "./PptxReader.ts"
import { readOdp, readOds, readOdt } from "./OdfReaders.ts"
import { readEpub } from "./EpubReader.ts"
import { readRtf } from "./RtfReader.ts"
import { convertWithLibreOffice, findSoffice } from "./LibreOffice.ts"
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

/** Legacy Word and PowerPoint binaries: LibreOffice converts, our OOXML readers read. */
export const legacyReader: Reader = makeReader("legacy", ["doc", "ppt"], async (request) => {
  // Without LibreOffice a Word 97 file still gives its text and tables.
  if (request.format === "doc" && findSoffice() === null) {
    const text = word97Characters(request.bytes, request.format)
    const blocks = [...word97Blocks(text.main), ...word97Footnotes(text.footnotes)]
    const warning = { severity: "warning" as const, code: "doc_text_only", message: "LibreOffice is not installed: the .doc was read as text and tables only (no headings, lists or emphasis)" }
    return { info: { metadata: {} }, pages: [() => page(1, blocks, { diagnostics: [warning] })] }
  }
  const to = request.format === "doc" ? "docx" : "pptx"
  const converted = await convertWithLibreOffice(request.bytes, { format: request.format, to, deadline: request.options.deadline })
  if (to === "pptx") return readPptx(converted, request.format)
  const doc = readWord(converted, request.format)
  return { info: doc.info, pages: [() => page(1, doc.blocks)] }
})

/**
 * Every office reader; with an OCR engine, the formats that store pictures (docx, pptx, odt,
 * odp, epub, and doc/ppt through their conversion) recognise them as `mode` asks.
 */
export const makeOfficeReaders = (options: ImageOcrOptions = {}): ReadonlyArray<Reader> => [
  withImageOcr(docxReader, options),
  xlsxReader,
  binaryWorkbookReader,
  csvReader,
  withImageOcr(pptxReader, options),
  withImageOcr(odfReader, options),
  withImageOcr(epubReader, options),
  rtfReader,
  withImageOcr(legacyReader, options)
]

/** The office readers without OCR (pictures by their alt text; `fast` and `auto` warn about scans). */
export const officeReaders: ReadonlyArray<Reader> = makeOfficeReaders()
