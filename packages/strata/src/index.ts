/**
 * `strata`: the library entry point. `scrape` and `parse` run the same pipeline as the HTTP
 * server, in-process, and resolve to the response's `data` object (or reject with a
 * `ScrapeError` whose `reason` says why). Effect users take `StrataLive` and the `Pipeline`
 * service instead.
 */
import { Pipeline, type ResponseData } from "@strata/core"
import { ManagedRuntime } from "effect"
import { StrataLive } from "./Live.ts"

export * from "@strata/core"
export { ReadersLive, StrataLive } from "./Live.ts"

let runtime: ManagedRuntime.ManagedRuntime<Pipeline, never> | undefined
const getRuntime = () => (runtime ??= ManagedRuntime.make(StrataLive))

/** Scrapes one URL. `options` are the contract's ScrapeOptions (formats, onlyMainContent, parsers, ...). */
export const scrape = (url: string, options: Record<string, unknown> = {}): Promise<ResponseData> =>
  getRuntime().runPromise(Pipeline.use((pipeline) => pipeline.scrape({ ...options, url })))

/** Parses the bytes of a document; `fileName` gives its extension. `options` are the contract's parse options. */
export const parse = (
  bytes: Uint8Array,
  fileName: string,
  options: Record<string, unknown> = {},
  contentType?: string
): Promise<ResponseData> =>
  getRuntime().runPromise(Pipeline.use((pipeline) => pipeline.parse({ bytes, fileName, contentType }, options)))

/** Releases the runtime's resources (pools, workers); the next call starts a new one. */
export const dispose = async (): Promise<void> => {
  const current = runtime
  runtime = undefined
  if (current) await current.dispose()
}


