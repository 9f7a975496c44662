/**
 * WHATWG `URLPattern` on every Node we support: Node 24 has it built in, Node 22 does not (its
 * `node:url` has no such export, and importing it there fails at load). The built-in class is
 * used where it exists; elsewhere urlpattern-polyfill's, imported without touching globals.
 */
import type { URLPattern as NodeURLPattern } from "node:url"
import { URLPattern as Polyfill } from "urlpattern-polyfill/urlpattern"

export type { URLPatternInit } from "node:url"

/** The URLPattern class: the runtime's own, else the polyfill's (same constructor and `test`). */
export const URLPattern: typeof NodeURLPattern =
  (globalThis as { URLPattern?: typeof NodeURLPattern }).URLPattern ?? (Polyfill as unknown as typeof NodeURLPattern)

export type URLPattern = NodeURLPattern
