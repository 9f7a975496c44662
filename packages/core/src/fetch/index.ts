/** The fetch engine: the `Fetcher` service, body decoding and the SSRF address classifier. */
export * from "./Fetcher.ts"
export * from "./Charset.ts"
export { blockedRange, isPublicAddress, parseIpv4, parseIpv6 } from "./IpClassifier.ts"
export { DEFAULT_MAX_DOCUMENT_BYTES, DEFAULT_MAX_PAGE_BYTES, defaultMaxBytes } from "./ResponseBody.ts"
export { defaultRequestHeaders, mergeRequestHeaders } from "./RequestHeaders.ts"
export { mimeEssence } from "./HttpExchange.ts"
export { acceptLanguageFor, DEFAULT_ACCEPT_LANGUAGE } from "./AcceptLanguage.ts"
