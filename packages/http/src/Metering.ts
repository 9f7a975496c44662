/**
 * What runs around a scrape or parse once its input is valid: idempotency (`x-request-id`), the
 * credit check before anything executes (402), the team's concurrency queue (408, 429), the
 * pipeline itself, the charge after it succeeded (one `chargeId` per request, atomic in the store;
 * 503 `billing_unavailable` when the store cannot charge), the idempotency record of the answer,
 * and the team's audit event.
 *
 * Order matters: a claimed `x-request-id` is given up (`abandonRequest`) whenever the request is
 * refused or fails without a charge, so a retry may run; it is completed with the answer when the
 * request was charged, so a retry replays it. The charge id of a request with an `x-request-id`
 * is derived from the team and the id (a retry on another replica is the same charge); otherwise
 * it is random. Teams without a credit limit are not charged (nothing to count down), but their
 * answer reports what the request would cost in `metadata.creditsUsed` as for everyone.
 */
import { chargeIdFor, type ContentEvent, HeldSlot, paramsHash, type ScrapeData, type ScrapeError, Store, type Team } from "@strata/core"
import { Effect, Exit, Scope, Stream } from "effect"
import { NodeHttpServerRequest } from "@effect/platform-node"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { randomUUID } from "node:crypto"
import type { AuditEvent } from "./Audit.ts"
import { type BilledOptions, costOf, failureCost, minimumCost } from "./Billing.ts"
import {
  billingUnavailable,
  duplicateRequest,
  type ErrorReply,
  insufficientCredits,
  limitsUnavailable,
  queueFull,
  queueTimedOut,
  requestInFlight,
  requestUnresolved,
  type RouteKind,
  scrapeErrorReply,
  withChargeId
} from "./ErrorReply.ts"
import { takeSlot } from "./Limits.ts"
import { ndjsonResponse } from "./NdjsonReply.ts"
import { respondData, respondError } from "./Reply.ts"
import { RequestContext } from "./RequestContext.ts"
import { ServerSettings } from "./ServerSettings.ts"

export interface MeteredRequest {
  readonly route: RouteKind
  /** The request as decoded (defaults applied): what an `x-request-id` reuse is compared on. */
  readonly params: unknown
  readonly options: BilledOptions
  /** The scraped URL for the audit event (left out under zero data retention); none for uploads. */
  readonly url?: string | undefined
  /** The least the request costs when the options do not say (catalog calls: what their tools declare). */
  readonly least?: number | undefined
  /** The audit event's endpoint, when it is not the route's own (an interact call). */
  readonly endpoint?: AuditEvent["endpoint"] | undefined
}

/** The queue's cap when the server's configuration sets none: requests waiting per team. */
export const defaultQueueLimit = 100

/** What a stored answer looks like: the status, a newline, the body's JSON text. */
const recordOf = (status: number, body: string) => `${status}\n${body}`
/** Kept instead of the answer under zero data retention: a reuse learns it ran, never what it returned. */
const notKept = "zdr"

const replay = (record: string) => {
  const newline = record.indexOf("\n")
  const status = Number(record.slice(0, newline))
  return HttpServerResponse.text(record.slice(newline + 1), { status, contentType: "application/json" })
}

/** Where the request's credits went: charged, or why they were not. */
type Billed =
  | { readonly _tag: "Charged"; readonly amount: number }
  | { readonly _tag: "Refused"; readonly reply: ErrorReply }

interface AuditFields {
  readonly code?: unknown
  readonly credits: number
  readonly queuedMs?: number | undefined
  readonly scrapeId?: unknown
  readonly replayed?: boolean
}

/** A request cleared to run: what it needs to finish, and the scope holding its concurrency slot. */
interface Cleared {
  readonly _tag: "Cleared"
  readonly timeoutMs: number
  readonly queuedMs: number | undefined
  /** The held slot's lease (none without a concurrency limit), given to the work as `HeldSlot`. */
  readonly leaseId: string | undefined
  /** Holds the slot; closing it gives the slot back (unless a queued job holds it now: `Store.bindSlot`). */
  readonly scope: Scope.Closeable
  /** The failure's answer (charged where a failure costs), the claim settled, the event sent. */
  readonly failed: (error: ScrapeError) => Effect.Effect<ErrorReply>
  /** The charged `data` with the request's metering metadata, or the refusal when it could not be charged. */
  readonly succeeded: (data: ScrapeData) => Effect.Effect<
    { readonly _tag: "Charged"; readonly data: ScrapeData; readonly record: (body: string) => Effect.Effect<void> } | {
      readonly _tag: "Refused"
      readonly reply: ErrorReply
    }
  >
  /** Charges an amount known from what ran (catalog calls), with its event; `record` keeps the answer for replay. */
  readonly chargedFor: (amount: number) => Effect.Effect<
    { readonly _tag: "Charged"; readonly record: (body: string) => Effect.Effect<void> } | {
      readonly _tag: "Refused"
      readonly reply: ErrorReply
    }
  >
  /** The work's own refusal after it was cleared (an interact call's unknown scrape): nothing charged, the claim given up, the event sent. */
  readonly unbilled: (reply: ErrorReply) => Effect.Effect<void>
  /** Gives the claim up (a defect, an interruption): nothing was charged, a retry may run. */
  readonly abandon: Effect.Effect<void>
}

/**
 * Everything before the run: the idempotency claim, the credit check and the concurrency wait.
 * Answers either a response (a refusal, or the replay of a finished request) or `Cleared`.
 */
const clear = (request: MeteredRequest) =>
  Effect.gen(function*() {
    const context = yield* RequestContext
    const { config, audit } = yield* ServerSettings
    const store = yield* Store
    const team: Team | undefined = context.team
    const { options, route } = request
    const started = Date.now()
    if (team === undefined) return { _tag: "Unmetered" } as const
    const key = context.idempotencyKey
    const chargeId = key === undefined ? randomUUID() : chargeIdFor(team.id, key)
    const zdr = team.zdr || options.zeroDataRetention || options.lockdown === true
    const endpoint = request.endpoint ?? (route === "scrape" ? "/v2/scrape" as const : "/v2/parse" as const)

    // Every answer from here on is audited here (the middleware audits the ones refused before).
    context.audited = true
    const emit = (status: number, fields: AuditFields) =>
      team.auditSink === undefined ? Effect.void : audit.emit(team.auditSink, {
        type: "request",
        time: new Date().toISOString(),
        requestId: context.requestId,
        team: team.id,
        keyId: context.keyId,
        endpoint,
        status,
        success: status >= 200 && status < 300 && fields.code === undefined,
        ...(typeof fields.code === "string" ? { code: fields.code } : {}),
        creditsUsed: fields.credits,
        durationMs: Date.now() - started,
        ...(fields.queuedMs !== undefined ? { concurrencyQueueDurationMs: fields.queuedMs } : {}),
        ...(typeof fields.scrapeId === "string" ? { scrapeId: fields.scrapeId } : {}),
        ...(!zdr && request.url !== undefined ? { url: request.url } : {}),
        ...(options.auditMetadata !== undefined ? { auditMetadata: { username: options.auditMetadata.username } } : {}),
        ...(fields.replayed === true ? { replayed: true } : {})
      } satisfies AuditEvent)

    /** A refusal before anything ran: its event, then its answer. */
    const refuse = (reply: ErrorReply) =>
      Effect.andThen(
        emit(reply.status, { code: reply.body.code ?? "refused", credits: 0 }),
        Effect.map(respondError(reply), (response) => ({ _tag: "Answered", response }) as const)
      )

    // Idempotency: claim the key, or answer from what is known of it.
    if (key !== undefined) {
      const state = yield* Effect.result(store.beginRequest({
        teamId: team.id,
        requestId: key,
        paramsHash: paramsHash([request.route, request.params]),
        // The claim counts as running until the request's own timeout (plus the store's grace).
        deadline: started + options.timeout + 1000
      }))
      if (state._tag === "Failure") return yield* refuse(billingUnavailable(chargeId))
      switch (state.success._tag) {
        case "Running":
          return yield* refuse(requestInFlight(chargeId))
        case "Conflict":
          return yield* refuse(duplicateRequest(chargeId))
        case "Unresolved":
          return yield* refuse(requestUnresolved(chargeId))
        case "Done": {
          const record = state.success.response
          if (record === notKept) {
            return yield* refuse(duplicateRequest(
              chargeId,
              "A request with this x-request-id already completed under zero data retention, so its response was not kept and cannot be replayed."
            ))
          }
          context.logFields.replayed = true
          yield* emit(Number(record.slice(0, record.indexOf("\n"))), { credits: 0, replayed: true })
          return { _tag: "Answered", response: replay(record) } as const
        }
      }
    }
    // Settles the claim: kept with the answer when the request was charged, else given up.
    const settle = (record: string | undefined) =>
      key === undefined ? Effect.void : Effect.ignore(
        record === undefined
          ? store.abandonRequest({ teamId: team.id, requestId: key })
          : store.completeRequest({ teamId: team.id, requestId: key, response: zdr ? notKept : record })
      )

    // Nothing runs for a team that cannot pay for the least this request costs.
    const least = request.least ?? minimumCost(options, team.zdr)
    if (team.credits !== undefined && team.credits < least) {
      yield* settle(undefined)
      return yield* refuse(insufficientCredits(route, least, team.credits, chargeId))
    }
    const scope = yield* Scope.make()
    const slot = yield* takeSlot(store, team, {
      timeoutMs: options.timeout,
      queueLimit: config.concurrencyQueueLimit ?? defaultQueueLimit
    }).pipe(Scope.provide(scope), Effect.onInterrupt(() => Effect.andThen(Scope.close(scope, Exit.void), settle(undefined))))
    if (slot._tag !== "Acquired") {
      yield* Scope.close(scope, Exit.void)
      yield* settle(undefined)
      switch (slot._tag) {
        case "TimedOut":
          return yield* refuse(withChargeId(queueTimedOut(slot.waitedMs, options.timeout), key && chargeId))
        case "QueueFull":
          return yield* refuse(queueFull(team.concurrency ?? 0, slot.queued))
        case "Unavailable":
          return yield* refuse(limitsUnavailable())
      }
    }
    const queuedMs = slot.queuedMs
    if (queuedMs !== undefined) context.logFields.queuedMs = queuedMs

    const charge = (amount: number): Effect.Effect<Billed> =>
      team.credits === undefined || amount === 0
        ? Effect.succeed({ _tag: "Charged", amount })
        : store.charge({ teamId: team.id, chargeId, amount }).pipe(
          Effect.as<Billed>({ _tag: "Charged", amount }),
          Effect.catch((error) =>
            Effect.succeed<Billed>({
              _tag: "Refused",
              reply: error._tag === "InsufficientCredits"
                ? insufficientCredits(route, amount, error.balance, chargeId, true)
                : billingUnavailable(chargeId)
            })
          )
        )

    const failed = (error: ScrapeError) =>
      Effect.gen(function*() {
        const reply = scrapeErrorReply(error, route)
        const cost = failureCost(reply.body.code)
        const billed = yield* charge(cost)
        const final = billed._tag === "Refused" ? billed.reply : withChargeId(reply, cost > 0 || key !== undefined ? chargeId : undefined)
        const credits = billed._tag === "Charged" ? billed.amount : 0
        yield* settle(credits > 0 ? recordOf(final.status, JSON.stringify(final.body)) : undefined)
        yield* emit(final.status, { code: final.body.code ?? "error", credits, queuedMs })
        return final
      })

    const succeeded = (data: ScrapeData) =>
      Effect.gen(function*() {
        const cost = costOf(options, data, team.zdr)
        const billed = yield* charge(cost)
        if (billed._tag === "Refused") {
          yield* settle(undefined)
          yield* emit(billed.reply.status, { code: billed.reply.body.code ?? "insufficient_credits", credits: 0, queuedMs })
          return { _tag: "Refused", reply: billed.reply } as const
        }
        const reportCredits = team.credits !== undefined || data.metadata?.creditsUsed !== undefined
        const added = {
          ...(reportCredits ? { creditsUsed: cost } : {}),
          ...(team.concurrency !== undefined ? { concurrencyLimited: queuedMs !== undefined } : {}),
          ...(queuedMs !== undefined ? { concurrencyQueueDurationMs: queuedMs } : {})
        }
        // An answer without metadata keeps none unless metering has something to say.
        const charged = data.metadata === undefined && Object.keys(added).length === 0 ? data : { ...data, metadata: { ...data.metadata, ...added } }
        context.logFields.credits = cost
        yield* emit(200, { credits: cost, queuedMs, scrapeId: charged.metadata?.scrapeId })
        return {
          _tag: "Charged",
          data: charged,
          record: (body: string) => settle(recordOf(200, body))
        } as const
      })

    const chargedFor = (amount: number) =>
      Effect.gen(function*() {
        const billed = yield* charge(amount)
        if (billed._tag === "Refused") {
          yield* settle(undefined)
          yield* emit(billed.reply.status, { code: billed.reply.body.code ?? "insufficient_credits", credits: 0, queuedMs })
          return { _tag: "Refused", reply: billed.reply } as const
        }
        context.logFields.credits = amount
        yield* emit(200, { credits: amount, queuedMs })
        return { _tag: "Charged", record: (body: string) => settle(recordOf(200, body)) } as const
      })

    return {
      _tag: "Cleared",
      timeoutMs: Math.max(1, options.timeout - (queuedMs ?? 0)),
      queuedMs,
      leaseId: slot.leaseId,
      scope,
      failed,
      succeeded,
      chargedFor,
      unbilled: (reply: ErrorReply) => Effect.andThen(settle(undefined), emit(reply.status, { code: reply.body.code ?? "error", credits: 0, queuedMs })),
      abandon: settle(undefined)
    } satisfies Cleared
  })

/**
 * Runs `run` (given the timeout left after any wait in the queue) under the team's limits and
 * billing, and answers the HTTP response.
 */
export const metered = (
  request: MeteredRequest,
  run: (timeoutMs: number) => Effect.Effect<ScrapeData, ScrapeError>
) =>
  Effect.gen(function*() {
    const cleared = yield* clear(request)
    if (cleared._tag === "Unmetered") {
      // The store could not say who the team is (the default team while it is down): unmetered.
      return yield* Effect.matchEffect(run(request.options.timeout), {
        onFailure: (error) => respondError(scrapeErrorReply(error, request.route)),
        onSuccess: (data) => Effect.succeed(respondData(data))
      })
    }
    if (cleared._tag === "Answered") return cleared.response
    const outcome = yield* Effect.exit(Effect.provideService(run(cleared.timeoutMs), HeldSlot, cleared.leaseId)).pipe(
      // The slot is held until the work is done; an interruption gives the claim up too.
      Effect.ensuring(Scope.close(cleared.scope, Exit.void)),
      Effect.onInterrupt(() => cleared.abandon)
    )
    if (Exit.isFailure(outcome)) {
      const failure = outcome.cause.reasons.find((reason) => reason._tag === "Fail")
      // A defect: nothing is charged, the claim is given up, the route's guard answers 500.
      if (failure === undefined) {
        yield* cleared.abandon
        return yield* Effect.failCause(outcome.cause)
      }
      return yield* respondError(yield* cleared.failed(failure.error))
    }
    const done = yield* cleared.succeeded(outcome.value)
    if (done._tag === "Refused") return yield* respondError(done.reply)
    const context = yield* RequestContext
    if (context.idempotencyKey === undefined) return respondData(done.data)
    const body = JSON.stringify({ success: true, data: done.data })
    yield* done.record(body)
    return HttpServerResponse.text(body, { status: 200, contentType: "application/json" })
  })

/**
 * `metered` for work whose cost is known from what it produced (a catalog request, whose calls'
 * failures are items of its answer; an interact call, charged for its browser time): runs it
 * under the team's limits, charges `price(result)` once, and answers `body(result)` as JSON
 * (replayed as such). A failure of the work is its own error answer, and costs nothing.
 */
export const meteredWork = <A>(
  request: MeteredRequest,
  run: (timeoutMs: number) => Effect.Effect<A, ErrorReply>,
  price: (result: A) => number,
  body: (result: A) => unknown
) =>
  Effect.gen(function*() {
    const cleared = yield* clear(request)
    if (cleared._tag === "Unmetered") {
      return yield* Effect.matchEffect(run(request.options.timeout), { onFailure: respondError, onSuccess: (result) => Effect.succeed(respondJson(body(result))) })
    }
    if (cleared._tag === "Answered") return cleared.response
    const outcome = yield* Effect.exit(run(cleared.timeoutMs)).pipe(
      Effect.ensuring(Scope.close(cleared.scope, Exit.void)),
      Effect.onInterrupt(() => cleared.abandon)
    )
    if (Exit.isFailure(outcome)) {
      const failure = outcome.cause.reasons.find((reason) => reason._tag === "Fail")
      // A defect or an interruption: nothing is charged and the claim is given up.
      if (failure === undefined) {
        yield* cleared.abandon
        return yield* Effect.failCause(outcome.cause)
      }
      yield* cleared.unbilled(failure.error)
      return yield* respondError(failure.error)
    }
    const result = outcome.value
    const billed = yield* cleared.chargedFor(price(result))
    if (billed._tag === "Refused") return yield* respondError(billed.reply)
    const text = JSON.stringify(body(result))
    yield* billed.record(text)
    return HttpServerResponse.text(text, { status: 200, contentType: "application/json" })
  })

const respondJson = (value: unknown) =>
  HttpServerResponse.text(JSON.stringify(value), { status: 200, contentType: "application/json" })

const line = (value: unknown): string => JSON.stringify(value) + "\n"

/**
 * The NDJSON form of `metered`: refusals before the stream starts are ordinary error responses;
 * the slot is held until the stream ends; the charge is made when the `done` event comes (a charge
 * refused then ends the stream with an `error` line in place of `done`). A replay of an
 * `x-request-id` answers the stored JSON response.
 */
export const meteredStream = (
  request: MeteredRequest,
  run: (timeoutMs: number) => Stream.Stream<ContentEvent, ScrapeError>
) =>
  Effect.gen(function*() {
    const cleared = yield* clear(request)
    if (cleared._tag === "Unmetered") return ndjsonResponse(run(request.options.timeout), request.route)
    if (cleared._tag === "Answered") return cleared.response
    // The stream runs after this handler returns, and may never run (the client left first):
    // the Node response's close is the one event that always comes, so it settles too.
    const incoming = yield* HttpServerRequest.HttpServerRequest
    const response = NodeHttpServerRequest.toServerResponse(incoming) as { readonly once?: (event: "close", listener: () => void) => unknown }
    response.once?.("close", () => {
      Effect.runFork(Effect.andThen(Scope.close(cleared.scope, Exit.void), cleared.abandon))
    })
    const events = run(cleared.timeoutMs).pipe(
      Stream.provideService(HeldSlot, cleared.leaseId),
      Stream.mapEffect((event) =>
        event.type !== "done" ? Effect.succeed<ContentEvent | string>(event) : Effect.gen(function*() {
          const done = yield* cleared.succeeded(event.data)
          if (done._tag === "Refused") return line({ type: "error", status: done.reply.status, ...done.reply.body })
          yield* done.record(JSON.stringify({ success: true, data: done.data }))
          return { type: "done", data: done.data } satisfies ContentEvent
        })
      ),
      Stream.catchTag("ScrapeError", (error) =>
        Stream.fromEffect(Effect.map(cleared.failed(error), (reply) => line({ type: "error", status: reply.status, ...reply.body })))),
      Stream.onExit((exit) => Exit.isSuccess(exit) ? Effect.void : cleared.abandon),
      Stream.ensuring(Scope.close(cleared.scope, Exit.void))
    )
    return ndjsonResponse(events, request.route)
  })
