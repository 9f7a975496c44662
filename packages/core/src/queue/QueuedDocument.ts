/**
 * A long document that a scrape fetched, on a replica of a fleet: read by a `strata worker`
 * through `QueuedParse`, as an upload of the same bytes would be, and answered as if read here.
 * Before, only `/v2/parse` uploads went to the fleet, and a scrape of a 2,000-page PDF's URL was
 * read in the replica that fetched it (its size is known only once fetched).
 *
 * The worker is given the scrape's content options that a parse has (`formats`, `parsers`,
 * `onlyMainContent`, `redactPII`, ...) and the time left to the scrape's deadline; what it answers
 * keeps the document's own metadata (title, pages) and takes the fetch's (`sourceURL`, `url`,
 * `statusCode`, `contentType`). A scrape whose options a parse cannot take (a format only a page
 * has) is read here, as is anything that is not a PDF `QueuedParse.takes` counts over its bound.
 */
import { Effect, Option } from "effect"
import { baseMetadata } from "../ContentStage.ts"
import { ParseOptionsBody } from "../contract/RequestBodies.ts"
import type { ParseOptions, ScrapeRequest } from "../contract/Request.ts"
import type { ScrapeData } from "../contract/Responses.ts"
import { decodeParseOptions } from "../contract/index.ts"
import { type ContentInput, fileNameOf } from "../Routing.ts"
import type { ScrapeError } from "../ScrapeError.ts"
import { checkParseSupported } from "../Support.ts"
import { QueuedParse } from "./QueuedParse.ts"

const parseKeys: ReadonlySet<string> = new Set(Object.keys(ParseOptionsBody.fields))

/** The scrape's options that a parse takes, with the time left; `undefined` when a parse would refuse them. */
export const parseOptionsOf = (request: ScrapeRequest, deadline: number): Effect.Effect<ParseOptions | undefined> => {
  const picked: Record<string, unknown> = Object.fromEntries(Object.entries(request).filter(([key]) => parseKeys.has(key)))
  picked.proxy = request.proxy === "basic" ? "basic" : "auto"
  picked.timeout = Math.max(1, deadline - Date.now())
  return decodeParseOptions(picked).pipe(Effect.tap(checkParseSupported), Effect.match({ onSuccess: (options) => options, onFailure: () => undefined }))
}

/** `data` as the scrape would have answered it: the fetch's URL, status and type over the upload's. */
const asFetched = (data: ScrapeData, input: ContentInput): ScrapeData => ({
  ...data,
  metadata: { ...data.metadata, ...baseMetadata(input, input.contentType ?? "application/pdf") }
})

/**
 * The answer of a fleet's worker for a fetched document `QueuedParse` takes; `None` when there is
 * no fleet in the context (the caller's: the server's replica layer), or the document stays here.
 */
export const queuedDocument = (input: ContentInput, request: ScrapeRequest, deadline: number): Effect.Effect<Option.Option<ScrapeData>, ScrapeError> =>
  Effect.gen(function*() {
    const queued = yield* Effect.serviceOption(QueuedParse)
    if (Option.isNone(queued)) return Option.none()
    // `takes` counts only a PDF's pages (its header read first): any other document answers false at once.
    const file = { bytes: input.bytes, fileName: fileNameOf(input.url) ?? "document.pdf", contentType: "application/pdf" }
    if (!(yield* queued.value.takes(file))) return Option.none()
    const options = yield* parseOptionsOf(request, deadline)
    if (options === undefined) return Option.none()
    return Option.some(asFetched(yield* queued.value.parse(file, options), input))
  })
