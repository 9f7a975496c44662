/** @strata/office: readers for every document format of /v2/parse except PDF. */
export {
  binaryWorkbookReader,
  csvReader,
  docxReader,
  epubReader,
  legacyReader,
  makeOfficeReaders,
  odfReader,
  officeReaders,
  pptxReader,
  rtfReader,
  xlsxReader
} from "./Readers.ts"
/** Whether LibreOffice is installed (needed for .ppt and for full-fidelity .doc). */
export { findSoffice } from "./LibreOffice.ts"
/** Picture OCR for any reader whose blocks reference stored images. */
export { withImageOcr, type ImageOcrOptions } from "./ImageOcr.ts"
