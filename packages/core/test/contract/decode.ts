/** Test helpers: run the contract decoders synchronously and read their outcome. */
import { Effect } from "effect"
import { expect } from "vitest"
import {
  decodeParseOptions,
  decodeScrapeBody,
  decodeScrapeRequest,
  type ParseOptions,
  type ScrapeBody,
  type ScrapeRequest
} from "../../src/contract/index.ts"
import type { ScrapeError } from "../../src/ScrapeError.ts"

type Outcome<A> = { ok: true; value: A } | { ok: false; error: ScrapeError }

const run = <A>(effect: Effect.Effect<A, ScrapeError>): Outcome<A> => {
  const result = Effect.runSync(Effect.result(effect))
  return result._tag === "Success" ? { ok: true, value: result.success } : { ok: false, error: result.failure }
}

export const scrape = (input: unknown): Outcome<ScrapeRequest> => run(decodeScrapeRequest(input))
export const body = (input: unknown): Outcome<ScrapeBody> => run(decodeScrapeBody(input))
export const parse = (input: unknown): Outcome<ParseOptions> => run(decodeParseOptions(input))

/** The decoded value; fails the test with the issues when decoding failed. */
export const ok = <A>(outcome: Outcome<A>): A => {
  if (!outcome.ok) expect.fail(`expected success, got: ${outcome.error.message}`)
  return outcome.value
}

/** The InvalidRequest issues; fails the test when decoding succeeded or failed otherwise. */
export const issues = (outcome: Outcome<unknown>): Array<{ path: string; message: string }> => {
  if (outcome.ok) expect.fail(`expected InvalidRequest, got success: ${JSON.stringify(outcome.value)}`)
  const reason = outcome.error.reason
  if (reason._tag !== "InvalidRequest") expect.fail(`expected InvalidRequest, got ${reason._tag}`)
  expect(reason.details.length).toBeGreaterThan(0)
  return reason.details.map((d) => ({ path: d.path.join("."), message: d.message }))
}

/** Asserts that decoding fails with an issue at `path` (dot-joined) whose message matches. */
export const rejectsAt = (outcome: Outcome<unknown>, path: string, message?: RegExp) => {
  const found = issues(outcome)
  const atPath = found.filter((i) => i.path === path)
  expect(atPath, `issues: ${JSON.stringify(found)}`).not.toHaveLength(0)
  if (message) expect(atPath.some((i) => message.test(i.message)), `issues: ${JSON.stringify(found)}`).toBe(true)
}

export const URL_ = "https://example.com/page"
export const withUrl = (extra: Record<string, unknown>) => ({ url: URL_, ...extra })
