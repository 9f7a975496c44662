/**
 * Parses that a replica hands to the fleet's workers instead of reading them itself: the contract
 * the /v2/parse route asks (when a layer provides it: a server with STRATA_DATABASE_URL set), and
 * `@strata/fleet` implements on the shared Postgres and the `JobQueue`.
 *
 * `takes` decides from what is cheap to know before reading (a PDF's page count, from its trailer
 * and page tree); `parse` answers exactly what `Pipeline.parse` would (the same `ScrapeData`, or
 * the same `ScrapeError`), so the route meters, charges and answers both alike. Its `timeout`
 * covers the wait in the queue as well as the reading.
 */
import { Context, type Effect } from "effect"
import type { ParseOptions } from "../contract/Request.ts"
import type { ScrapeData } from "../contract/Responses.ts"
import type { UploadedFile } from "../Pipeline.ts"
import type { ScrapeError } from "../ScrapeError.ts"

export class QueuedParse extends Context.Service<QueuedParse, {
  /** Whether this upload goes to the queue (never fails: a document it cannot size stays inline). */
  readonly takes: (file: UploadedFile) => Effect.Effect<boolean>
  /** Enqueues the parse, waits for a worker's answer (at most `options.timeout` ms) and returns it. */
  readonly parse: (file: UploadedFile, options: ParseOptions) => Effect.Effect<ScrapeData, ScrapeError>
}>()("@strata/core/QueuedParse") {}
