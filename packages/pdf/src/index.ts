/**
 * @strata/pdf: PDFs to pages of typed blocks with pdf.js: the PDF `Reader` (which takes its page
 * stages from the Effect context), the heuristic layers of those stages, the learned Layout layer
 * (models/layout's block classifier on onnxruntime-node), page rendering and the per-page OCR
 * decision.
 */
import { heuristicLayout, heuristicReadingOrder, heuristicTables } from "./HeuristicLayout.ts"
export {
  defaultLayoutModel,
  type LayoutClassifier,
  layoutModelMeta,
  learnedLayout,
  LearnedLayout,
  learnedLayoutLayer,
  onnxClassifier
} from "./LearnedLayout.ts"
import { pdfReaderWith } from "./PdfReader.ts"

export { makePdfReader, type PdfReader, pdfReaderWith, WINDOW, type PdfStages } from "./PdfReader.ts"
export {
  heuristicLayout,
  HeuristicLayout,
  heuristicReadingOrder,
  HeuristicReadingOrder,
  heuristicReadingOrderWith,
  heuristicTables,
  heuristicTablesWith,
  HeuristicTables
} from "./HeuristicLayout.ts"
export { openPdf, closePdf } from "./PdfLoader.ts"
export { looksLikePdf, pdfPageCount } from "./PageCount.ts"
export { readPage, type PageContent } from "./PageContent.ts"
export { readPageContent } from "./PageSource.ts"
export { type PagePool, PageWorkers, pdfWorkersConfig } from "./PagePool.ts"
export { buildLines } from "./Lines.ts"
export { tableMarkdown } from "./TableGrid.ts"
export { openRenderer, type PageRenderer, type RenderedPage } from "./PageRenderer.ts"
export { decideOcr, type DecisionInput, type DecisionReason, type OcrDecision } from "./OcrDecision.ts"
export { ocrRuns } from "./OcrPages.ts"

/** The PDF reader with the heuristic stages and no OCR (benchmarks, tools). */
export const pdfReader = pdfReaderWith({ layout: heuristicLayout(heuristicTables), readingOrder: heuristicReadingOrder })
