/**
 * Audit events: when a team has an audit sink (`strata teams set T --audit <sink>`), every scrape
 * and parse it sends emits one JSON event there: `stdout`, a `.jsonl` file (one line appended per
 * event), or an `https://` webhook (POSTed; `http://` only to a loopback host). An event carries
 * `auditMetadata.username`, the team, key, endpoint, status, credits and timing; the URL is left
 * out under lockdown and zero data retention. Emitting never fails or delays the request: a file
 * that cannot be written or a webhook that does not answer is logged and dropped.
 */
import { Effect } from "effect"
import { appendFile, mkdir } from "node:fs/promises"
import { dirname, resolve } from "node:path"

export interface AuditEvent {
  readonly type: "request"
  readonly time: string
  readonly requestId: string
  readonly team: string
  readonly keyId: string | undefined
  readonly endpoint: "/v2/scrape" | "/v2/parse" | "/v2/scrape/{scrapeId}/interact"
  readonly status: number
  readonly success: boolean
  readonly code?: string | undefined
  readonly creditsUsed: number
  readonly durationMs: number
  readonly concurrencyQueueDurationMs?: number | undefined
  readonly scrapeId?: string | undefined
  /** Left out under lockdown and zero data retention. */
  readonly url?: string | undefined
  readonly auditMetadata?: { readonly username: string } | undefined
  readonly replayed?: boolean | undefined
}

export type AuditSink =
  | { readonly _tag: "Stdout" }
  | { readonly _tag: "File"; readonly path: string }
  | { readonly _tag: "Webhook"; readonly url: string }

const loopbackHosts = new Set(["127.0.0.1", "localhost", "[::1]", "::1"])

/** Reads a team's sink setting; undefined for one this server cannot write to. */
export const parseAuditSink = (sink: string): AuditSink | undefined => {
  const value = sink.trim()
  if (value === "stdout") return { _tag: "Stdout" }
  if (/^https?:\/\//i.test(value)) {
    try {
      const url = new URL(value)
      if (url.protocol === "https:" || (url.protocol === "http:" && loopbackHosts.has(url.hostname))) return { _tag: "Webhook", url: url.href }
    } catch {
      return undefined
    }
    return undefined
  }
  if (value.endsWith(".jsonl")) return { _tag: "File", path: resolve(value) }
  return undefined
}

/** How long a webhook may take before the event is dropped. */
const webhookTimeoutMs = 5_000

export interface AuditWriter {
  /** Sends the event to the sink; returns at once (the write happens in the background). */
  readonly send: (sink: string, event: AuditEvent) => void
  /** `send` as an effect. */
  readonly emit: (sink: string, event: AuditEvent) => Effect.Effect<void>
}

/** The endpoints whose every request is audited. */
export const auditedPaths: ReadonlySet<string> = new Set(["/v2/scrape", "/v2/parse"])

/**
 * The event of a request answered before Metering.ts took it (its team's rate limit, an invalid
 * body): nothing ran and nothing was charged; no URL, as the body was not (or not validly) read.
 */
export const refusedEvent = (
  context: { readonly requestId: string; readonly keyId: string | undefined; readonly team?: { readonly id: string } | undefined; readonly logFields: Record<string, unknown> },
  path: string,
  status: number,
  durationMs: number
): AuditEvent => ({
  type: "request",
  time: new Date().toISOString(),
  requestId: context.requestId,
  team: context.team?.id ?? "unknown",
  keyId: context.keyId,
  endpoint: path === "/v2/parse" ? "/v2/parse" : "/v2/scrape",
  status,
  success: false,
  ...(typeof context.logFields.code === "string" ? { code: context.logFields.code } : {}),
  creditsUsed: 0,
  durationMs: Math.round(durationMs)
})

/**
 * A writer whose file appends are kept in order per file (one chain each), and whose failures go
 * to `log` as one JSON line.
 */
export const makeAuditWriter = (options: {
  readonly writeStdout: (line: string) => void
  readonly log: (line: string) => void
}): AuditWriter => {
  const chains = new Map<string, Promise<void>>()
  const failed = (sink: string, message: string) =>
    options.log(JSON.stringify({ level: "warn", msg: "audit event dropped", sink: sink.split(/[?#]/)[0], error: message }))

  const appendLine = (path: string, line: string): void => {
    const previous = chains.get(path) ?? Promise.resolve()
    const next = previous
      .then(() => mkdir(dirname(path), { recursive: true }))
      .then(() => appendFile(path, line, { encoding: "utf8", mode: 0o600 }))
      .catch((error: Error) => failed(path, error.message))
    chains.set(path, next)
    void next.then(() => {
      if (chains.get(path) === next) chains.delete(path)
    })
  }

  const post = (url: string, body: string): void => {
    fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
      signal: AbortSignal.timeout(webhookTimeoutMs),
      redirect: "error"
    }).then(
      async (response) => {
        await response.body?.cancel()
        if (!response.ok) failed(url, `HTTP ${response.status}`)
      },
      (error: Error) => failed(url, error.message)
    )
  }

  const send = (sinkSetting: string, event: AuditEvent): void => {
    const sink = parseAuditSink(sinkSetting)
    if (sink === undefined) return failed(sinkSetting, "not a sink this server can write to (stdout, a .jsonl file, an https:// URL)")
    const line = JSON.stringify(event)
    switch (sink._tag) {
      case "Stdout":
        return options.writeStdout(line + "\n")
      case "File":
        return appendLine(sink.path, line + "\n")
      case "Webhook":
        return post(sink.url, line)
    }
  }
  return { send, emit: (sink, event) => Effect.sync(() => send(sink, event)) }
}
