/** @strata/core: the Document model, stage contracts, the pipeline and the markdown writer. */
export * from "./Document.ts"
export * from "./MarkdownWriter.ts"
export * from "./DocumentReader.ts"
export * from "./ScrapeError.ts"
export * from "./Ocr.ts"
export * from "./contract/index.ts"
export * from "./fetch/index.ts"
export * from "./TypeDetection.ts"
export * from "./html/index.ts"
export * from "./DocumentRun.ts"
export * from "./MarkdownHtml.ts"
export * from "./Support.ts"
export { browserRequestOf } from "./EngineChoice.ts"
export type { ContentEvent } from "./ContentStage.ts"
export { contractProjection, FormatProjection, makeProjection, type Produced, type Projection, type Requested } from "./FormatProjection.ts"
export {
  type Completion,
  type CompletionRequest,
  EndpointFailed,
  estimateTokens,
  LanguageModel,
  LanguageModelError,
  type LanguageModelShape,
  MalformedResponse,
  ModelTimedOut,
  RateLimited,
  type Usage
} from "./LanguageModel.ts"
export * as OpenAiCompatible from "./llm/OpenAiCompatible.ts"
export { type Derived, type DerivedBy, deriveOffline, deriveWithModel } from "./derived/DerivedFormats.ts"
export * from "./Pipeline.ts"
export * from "./Matrix.ts"
export * from "./layout/PageElements.ts"
export * from "./stages/StageError.ts"
export * from "./stages/Layout.ts"
export * from "./stages/Tables.ts"
export * from "./stages/ReadingOrder.ts"
export * from "./stages/Redaction.ts"
export { type DocumentWriter, defaultMarkdown, Markdown, type MarkdownStage, rewriting } from "./stages/Markdown.ts"
export { gridOfRows, writeTable, type CellGrid, type GridCell, type TableWriterOptions } from "./markdown/TableWriter.ts"
export { blockMarkdown, structuredBlock, type BlockStructure } from "./markdown/BlockMarkdown.ts"
export { writeHtml, type HtmlWriterOptions, type WrittenHtml } from "./markdown/BlockHtml.ts"
export { escapeHtml, escapeHtmlAttribute } from "./markdown/HtmlEscape.ts"
export { defaultZipLimits, ZipArchive, type ZipLimits } from "./ZipArchive.ts"
export { readFailure, thrownKind, thrownReason, type ThrownKind } from "./ReadFailure.ts"
export * as ReaderPool from "./isolation/ReaderPool.ts"
export { type BuildReaders, capPage, MAX_DOCUMENT_CHARS, serveReaders } from "./isolation/ReaderHost.ts"
export {
  deadLetterOf,
  defaultQueueSettings,
  type Enqueued,
  type EnqueueOptions,
  InvalidJob,
  isQueueName,
  type Job,
  type JobInfo,
  JobQueue,
  JobQueueError,
  jobIdFor,
  type JobSpec,
  type JobStatus,
  Priority,
  type QueueDepth,
  type QueueSettings,
  QueueUnavailable,
  type WorkOptions
} from "./queue/JobQueue.ts"
export * as MemoryJobQueue from "./queue/MemoryJobQueue.ts"
export { QueuedParse } from "./queue/QueuedParse.ts"
export * as PrometheusText from "./metrics/PrometheusText.ts"
export { PROBE_TIMEOUT, probeFailureReason, withinProbeTimeout } from "./metrics/ReadinessProbe.ts"
export {
  type Artifact,
  type ArtifactBytes,
  type ArtifactFile,
  type ArtifactLink,
  ArtifactStore,
  fileStoreConfig,
  publicUrlFor,
  type StoredArtifact,
  type SweepReport
} from "./artifacts/ArtifactStore.ts"
export { type FileStoreOptions } from "./artifacts/FileArtifactStore.ts"
export { loadOrCreateSecret, secretFromText } from "./artifacts/ArtifactSecret.ts"
export { type ArtifactKind, artifactPathPrefix } from "./artifacts/ArtifactLinks.ts"
export { ArtifactError, ArtifactMissing, ArtifactSetupError, BadSignature, LinkExpired, MalformedLink } from "./artifacts/ArtifactError.ts"
export {
  type AcceptedTerms,
  type ApiKeyInfo,
  type Authenticated,
  type CachedPage,
  type CacheEntry,
  type ChangeKey,
  type Charge,
  type CreatedKey,
  defaultTeamId,
  HeldSlot,
  type PageSnapshot,
  type RequestClaim,
  type RequestState,
  type SlotClaim,
  type SlotJob,
  type SlotState,
  type SqlExecutor,
  Store,
  type Team,
  type TeamSettings
} from "./store/Store.ts"
export { InsufficientCredits, MigrationFailed, StoreError, StoreUnavailable, UnknownTeam } from "./store/StoreError.ts"
export {
  cacheHitFits,
  cacheKey,
  cacheKeyOf,
  cacheOnly,
  cacheUse,
  type CacheVariant,
  cacheVariant,
  normalizeCacheUrl
} from "./store/CacheRules.ts"
export { canonicalJson, chargeIdFor, paramsHash } from "./store/Idempotency.ts"
export { ChangeTrackingTeam, type TrackingFormat, trackingFormat } from "./store/ChangeHistory.ts"
export { changeStatus, comparable, jsonChanges, markdownDiff, schemaKeyOf } from "./store/ChangeRules.ts"
export { type Branding, brandingFromSamples } from "./branding/Branding.ts"
export {
  builtinTerms,
  type CatalogItem,
  type CatalogOutcome,
  type CatalogPlan,
  type CatalogProvider,
  CatalogDenied,
  CatalogError,
  CatalogRegistry,
  type CatalogTool,
  checkTerms,
  domainToolsFor,
  layerBuiltinProviders,
  planCatalog,
  type ProviderTerms,
  runCatalog,
  TermsRequired,
  tool,
  type ToolContext,
  ToolFailed,
  type ToolOutput,
  UnknownProvider
} from "./catalog/index.ts"
