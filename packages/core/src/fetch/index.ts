/** The fetch engines: the `Fetcher` service and the `BrowserEngine` contract, body decoding and the SSRF address policy. */
export * from "./Fetcher.ts"
export * from "./Charset.ts"
export { blockedRange, isPublicAddress, parseIpv4, parseIpv6 } from "./IpClassifier.ts"
export { DEFAULT_MAX_DOCUMENT_BYTES, DEFAULT_MAX_PAGE_BYTES, defaultMaxBytes } from "./ResponseBody.ts"
export { defaultRequestHeaders, mergeRequestHeaders } from "./RequestHeaders.ts"
export { mimeEssence } from "./HttpExchange.ts"
export { acceptLanguageFor, DEFAULT_ACCEPT_LANGUAGE } from "./AcceptLanguage.ts"
export { invalidHeaders } from "./RequestHeaders.ts"
export { BlockedAddressError, blockedLiteral, makeGuardedLookup } from "./SafeLookup.ts"
export { isBadPort, urlPort } from "./PortPolicy.ts"
export { needsJavaScript, type JavaScriptReason } from "./NeedsJavaScript.ts"
export * from "./Browser.ts"
export * from "./Interaction.ts"
export {
  type InteractRecord,
  InteractRecords,
  type InteractRecordsService,
  type LeaseClaim,
  memoryInteractRecords,
  profileLease,
  RecordUnreadable,
  sessionLease
} from "./InteractRecords.ts"
