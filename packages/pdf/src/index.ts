/** @strata/pdf: born-digital PDFs to pages of typed blocks (text, headings, lists, tables, code) with pdf.js. */
export { pdfReader, readPdf, WINDOW } from "./PdfReader.ts"
export { openPdf, closePdf } from "./PdfLoader.ts"
export { readPageContent, type PageContent, type TextRun, type Rule } from "./PageContent.ts"
export { buildLines, type Line } from "./Lines.ts"
export { analysePage, finishPage, type PageAnalysis } from "./PageLayout.ts"
export { tableMarkdown, type TableGrid, type TableCell } from "./TableGrid.ts"
export { makePdfReader, type PdfReaderOptions } from "./OcrPdfReader.ts"
