/** @strata/core: the Document model, stage contracts, the pipeline and the markdown writer. */
export * from "./Document.ts"
export * from "./MarkdownWriter.ts"
export * from "./DocumentReader.ts"
export * from "./ScrapeError.ts"
export * from "./contract/index.ts"
export * from "./fetch/index.ts"
export * from "./TypeDetection.ts"
export * from "./Ocr.ts"
