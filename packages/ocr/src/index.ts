/**
 * @strata/ocr: OCR engines behind core's `OcrEngine` contract (tesseract.js, PaddleOCR on
 * onnxruntime) and a worker-thread pool for them, plus the conversion of OCR lines into Document
 * blocks for pictures in office documents. Rendering PDF pages and the per-page `auto` decision
 * live in `@strata/pdf`, where OCR'd pages join the same layout chain as native text.
 */
export * as TesseractEngine from "./TesseractEngine.ts"
export * as TesseractModel from "./TesseractModel.ts"
export * as PaddleEngine from "./PaddleEngine.ts"
export * as LineEngine from "./LineEngine.ts"
export * as CascadeEngine from "./CascadeEngine.ts"
export * as OcrPool from "./OcrPool.ts"
export { defaultEngine, makeEngine } from "./EngineChoice.ts"
export type { EngineChoice } from "./EngineChoice.ts"
export { ocrPageToBlocks } from "./OcrBlocks.ts"
export type { OcrBlocksOptions } from "./OcrBlocks.ts"
export { applyOrientation, binarise, estimateOrientation, toGray } from "./ImageOps.ts"
export type { Gray, Orientation } from "./ImageOps.ts"
export { characterErrorRate, wordErrorRate } from "./ErrorRate.ts"
