/**
 * `strata`: the library entry point.
 *
 * - Node users: `createStrata(options)` returns `{ scrape, parse, parseStream, getArtifact, close }`, typed from
 *   the contract's Schemas, each call taking an `AbortSignal`. The module-level `scrape` and
 *   `parse` use one shared default handle (`dispose()` stops it).
 * - Effect users: `Strata.layer(options)` is the `Pipeline` service with every engine; any stage
 *   (`Layout`, `Tables`, `ReadingOrder`, `OcrEngine`, `Redaction`, `Markdown`) is replaced through
 *   `options.stages`; `TypeDetection` and `FormatProjection` by providing their layer to
 *   `Strata.layer(options)`. The stage contracts are exported to write your own.
 */
import { createStrata, type DocumentInput, type ParseOptions, type ScrapeData, type ScrapeOptions, type StrataClient } from "./Client.ts"

export { createStrata } from "./Client.ts"
export type { ArtifactsOption, CacheOption, CallOptions, CreateStrataOptions, DocumentInput, ParseEvent, ParseOptions, ScrapeData, ScrapeOptions } from "./Client.ts"
export type { StrataClient } from "./Client.ts"
export type { StageLayers, StrataOptions } from "./Live.ts"
export type { OcrEngineName } from "./LazyOcr.ts"

/** The Effect API: `Strata.layer(options)`, the `Pipeline` service and its layers. */
export * as Strata from "./Effect.ts"

// The stage contracts and what they exchange, for users who write their own stage.
export {
  type ArtifactBytes,
  ArtifactError,
  ArtifactStore,
  type Block,
  type BlockKind,
  type Completion,
  type CompletionRequest,
  type ContentEvent,
  contentSniffing,
  contractProjection,
  type DetectInput,
  detectFormat,
  type Diagnostic,
  defaultMarkdown,
  DocumentReaders,
  type DocumentWriter,
  FormatProjection,
  LanguageModel,
  LanguageModelError,
  type LanguageModelShape,
  Layout,
  type LayoutBlock,
  Markdown,
  type MarkdownStage,
  type LayoutPage,
  type LayoutSession,
  type Line,
  noRedaction,
  OcrEngine,
  OcrError,
  OpenAiCompatible,
  type OcrImage,
  type OcrLine,
  type OcrResult,
  type OcrWord,
  type Page,
  type PageElements,
  Pipeline,
  type Produced,
  type Projection,
  ReadingOrder,
  Redaction,
  type Redactor,
  type Requested,
  rewriting,
  ScrapeError,
  StageError,
  stageStep,
  type TableGrid,
  Tables,
  type TableSplit,
  type TextRun,
  TypeDetection,
  type TypeDetector,
  withContent
} from "@strata/core"

let shared: StrataClient | undefined
const defaultHandle = () => (shared ??= createStrata())

/** Scrapes one URL with the shared default handle. */
export const scrape = (url: string, options?: ScrapeOptions): Promise<ScrapeData> => defaultHandle().scrape(url, options)

/**
 * Parses the bytes of a document with the shared default handle; `fileName` gives its extension.
 * (`createStrata().parse({ bytes, fileName }, options)` is the same on a handle of your own.)
 */
export const parse = (
  bytes: Uint8Array,
  fileName: string,
  options?: ParseOptions,
  contentType?: string
): Promise<ScrapeData> => defaultHandle().parse({ bytes, fileName, contentType } satisfies DocumentInput, options)

/** Stops the shared default handle's pools and workers; the next call starts a new one. */
export const dispose = async (): Promise<void> => {
  const current = shared
  shared = undefined
  if (current !== undefined) await current.close()
}
