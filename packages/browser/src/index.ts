/**
 * @strata/browser: the browser engine behind core's `BrowserEngine` contract, Debian's Chromium
 * driven by Playwright, with the SSRF proxy every page request goes through, and the interact
 * sessions (core's `Interactions`) that share its browser.
 */
export { type BrowserOptions, DEFAULT_CHROMIUM_PATH, DEFAULT_IDLE_MS, defaultConcurrency, layer, make } from "./PlaywrightEngine.ts"
export { DEFAULT_WAIT, type WaitTuning } from "./SmartWait.ts"
export type { GuardPolicy } from "./GuardProxy.ts"
export type { SessionOptions } from "./InteractSessions.ts"
export { AdBlockLists, cosmeticLayer } from "./CosmeticRules.ts"
