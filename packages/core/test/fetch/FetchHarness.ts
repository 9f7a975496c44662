/** Shared helpers of the fetch tests: run one fetch against a fetcher built with a given policy. */
import { Effect } from "effect"
import { Fetcher, type FetcherConfig, type FetchOptions, type FetchResponse } from "../../src/fetch/Fetcher.ts"
import type { ScrapeError } from "../../src/ScrapeError.ts"

export const open: FetcherConfig = { allowPrivate: true }
export const guarded: FetcherConfig = { allowPrivate: false }

export const fetchWith = (config: FetcherConfig, url: string, options: Partial<FetchOptions> = {}): Effect.Effect<FetchResponse, ScrapeError> =>
  Effect.gen(function*() {
    const fetcher = yield* Fetcher
    return yield* fetcher.fetch(url, { deadline: Date.now() + 15_000, skipTlsVerification: true, ...options })
  }).pipe(Effect.provide(Fetcher.layerWith(config)))

/** The failure of a fetch that must fail, as its reason. */
export const failureOf = (config: FetcherConfig, url: string, options: Partial<FetchOptions> = {}): Effect.Effect<ScrapeError["reason"]> =>
  fetchWith(config, url, options).pipe(
    Effect.matchEffect({
      onSuccess: (response) => Effect.die(new Error(`expected fetching ${url} to fail, got status ${response.status}`)),
      onFailure: (error) => Effect.succeed(error.reason)
    })
  )

export const text = (body: Uint8Array): string => new TextDecoder().decode(body)
