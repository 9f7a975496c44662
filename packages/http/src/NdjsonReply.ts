/**
 * NDJSON streaming, an extension beyond the contract: a client that sends
 * `Accept: application/x-ndjson` gets one JSON line per document page as soon as it is ready,
 * then a `done` line with the rest of `data`, so a 2,000-page PDF never sits whole in memory.
 *
 * Lines: `{"type":"page","pageNumber","chunk","markdown","blocks"?}` (`chunk` is what the page
 * appended to the document markdown, page markers included; `markdown` is the page's own),
 * `{"type":"done","success":true,"data"}`, or, when something fails after the stream started,
 * `{"type":"error","success":false,"status","error","code"}` as the last line. Failures found
 * before the first line (validation, unsupported options) are ordinary error responses.
 */
import type { ContentEvent, ScrapeError } from "@strata/core"
import { Stream } from "effect"
import { HttpServerResponse } from "effect/http"
import { scrapeErrorReply, type RouteKind } from "./ErrorReply.ts"

export const NDJSON = "application/x-ndjson"

/** Whether the client asked for the NDJSON stream. */
export const wantsNdjson = (accept: string | undefined): boolean => (accept ?? "").toLowerCase().includes(NDJSON)

const line = (value: unknown): string => JSON.stringify(value) + "\n"

/** An event, or a line already written (Metering.ts ends a stream whose charge was refused with one). */
const eventLine = (event: ContentEvent | string): string =>
  typeof event === "string"
    ? event
    : event.type === "done"
    ? line({ type: "done", success: true, data: event.data })
    : line({
      type: "page",
      pageNumber: event.pageNumber,
      chunk: event.chunk,
      markdown: event.page?.markdown ?? "",
      ...(event.blocks ? { blocks: event.blocks } : {})
    })

export const ndjsonResponse = (
  events: Stream.Stream<ContentEvent | string, ScrapeError>,
  route: RouteKind
): HttpServerResponse.HttpServerResponse => {
  const lines = events.pipe(
    Stream.map(eventLine),
    Stream.catchTag("ScrapeError", (error) => {
      const reply = scrapeErrorReply(error, route)
      return Stream.succeed(line({ type: "error", status: reply.status, ...reply.body }))
    }),
    Stream.encodeText
  )
  return HttpServerResponse.stream(lines, { contentType: NDJSON, headers: { "cache-control": "no-store" } })
}

