/** @strata/office: readers for every document format of /v2/parse except PDF. */
export {
  binaryWorkbookReader,
  csvReader,
  docxReader,
  epubReader,
  legacyReader,
  makeLegacyReader,
  makeOfficeReaders,
  odfReader,
  officeReaders,
  pptxReader,
  rtfReader,
  xlsxReader,
  type OfficeReaderOptions
} from "./Readers.ts"
/** LibreOffice conversions for .ppt and full-fidelity .doc (a layer, configured by `STRATA_SOFFICE`...). */
export { type ConvertOptions, findSoffice, LibreOffice, libreOfficeConfig, type LibreOfficeOptions } from "./LibreOffice.ts"
/** Picture OCR for any reader whose blocks reference stored images. */
export { withImageOcr, type ImageOcrOptions } from "./ImageOcr.ts"
