/**
 * @strata/ocr: OCR engines behind core's `OcrEngine` contract (tesseract.js, PaddleOCR on
 * onnxruntime), a worker-thread pool, PDF page rendering for OCR, the per-page `auto` decision
 * and the conversion of OCR lines into Document blocks.
 */
export * as TesseractEngine from "./TesseractEngine.ts"
export * as PaddleEngine from "./PaddleEngine.ts"
export * as OcrPool from "./OcrPool.ts"
export { defaultEngine, makeEngine } from "./EngineChoice.ts"
export type { EngineChoice } from "./EngineChoice.ts"
export { decideOcr } from "./OcrDecision.ts"
export type { DecisionInput, DecisionOptions, DecisionReason, DecisionTextItem, OcrDecision } from "./OcrDecision.ts"
export { ocrPageToBlocks } from "./OcrBlocks.ts"
export type { OcrBlocksOptions } from "./OcrBlocks.ts"
export { openRenderer } from "./PageRenderer.ts"
export { pageFacts } from "./PdfPageFacts.ts"
export type { PageRenderer, RenderedPage } from "./PageRenderer.ts"
export { applyOrientation, binarise, estimateOrientation, toGray } from "./ImageOps.ts"
export type { Gray, Orientation } from "./ImageOps.ts"
export { characterErrorRate, wordErrorRate } from "./ErrorRate.ts"
