/**
 * The /v2 contract as Schema: request decoders and the normalised request types the pipeline
 * consumes, the wire Schemas of requests, responses and error bodies, and the OpenAPI
 * document. Building blocks (bounded integers, header maps, ...) stay internal so the names
 * re-exported by @strata/core are the contract's own.
 */
export {
  type CommonOptions,
  type CatalogRequest,
  decodeParseOptions,
  decodeScrapeBody,
  decodeScrapeRequest,
  DEFAULT_MAX_AGE_MS,
  DEFAULT_TIMEOUT_MS,
  getFormat,
  hasFormat,
  imageParser,
  LOCKDOWN_MAX_AGE_MS,
  type ParseOptions,
  pdfParser,
  type ResolvedRedactPII,
  type ScrapeBody,
  type ScrapeOptions,
  type ScrapeRequest
} from "./Request.ts"
export {
  defaultFormats,
  type Format,
  type FormatOf,
  FormatOption,
  type FormatType,
  FormatTypes,
  objectOnlyFormatTypes,
  ParseFormatOption,
  ParseFormatTypes,
  type SimpleFormatType,
  SimpleFormatTypes
} from "./Formats.ts"
export { Action, ActionTypes, PdfPaperFormats, type ResolvedAction, Viewport } from "./Actions.ts"
export { defaultParsers, defaultPdfParser, type ImageParser, type PdfParser, Parser, type ResolvedParser } from "./Parsers.ts"
export {
  CatalogCall,
  CatalogResponse,
  CatalogResultItem,
  DiscoveredTool,
  type ResolvedCatalogCall
} from "./Catalog.ts"
export {
  ParseOptionsBody,
  RedactPIIEntities,
  RedactPIIOptions,
  ScrapeRequestBody,
  ThreatProtection
} from "./RequestBodies.ts"
export {
  ActionsResult,
  BlockConfidence,
  BlockItem,
  BrandingProfile,
  ChangeTrackingResult,
  DocumentMetadata,
  MenuProfile,
  PageBlocks,
  PageMarkdown,
  ProductProfile,
  ScrapeData,
  ScrapeResponse
} from "./Responses.ts"
export {
  ErrorBody,
  ErrorCodes,
  type ErrorStatus,
  MessageOnlyErrorBody,
  parseErrorStatuses,
  RequiresAction,
  scrapeErrorStatuses,
  ValidationIssue
} from "./ErrorBodies.ts"
export { formatPath, type RequestIssue } from "./Issues.ts"
export { normalizeHttpUrl } from "./Primitives.ts"
export { openApiDocument } from "./OpenApi.ts"
export {
  decodeInteractRequest,
  INTERACT_DEFAULT_TIMEOUT_S,
  INTERACT_MAX_CODE_CHARS,
  INTERACT_MAX_PROMPT_CHARS,
  INTERACT_MAX_TIMEOUT_S,
  type InteractRequest,
  InteractRequestBody
} from "./InteractRequest.ts"
