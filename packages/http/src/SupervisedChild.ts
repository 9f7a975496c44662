/**
 * The server's side of supervision: what it tells its supervisor over the IPC channel `fork`
 * opened (that it listens, and which requests are in flight, so a crash can log them as lost),
 * and the rule that it stops when the supervisor goes away, so a killed supervisor leaves no
 * server holding the port. Without a channel (not supervised) the tracker does nothing.
 */
import type { RequestTracker } from "./ServerConfig.ts"

/** Set by the supervisor in the environment of the server it forks. */
export const supervisedChildVariable = "STRATA_SUPERVISED_CHILD"

/** What the server sends. Method and path only: never bodies, keys, headers or query strings. */
export type ChildMessage =
  | { readonly strata: "listening"; readonly url: string }
  | {
    readonly strata: "request"
    /** Unique within the process (client-supplied request ids need not be). */
    readonly seq: number
    readonly requestId: string
    readonly method: string
    readonly path: string
  }
  | { readonly strata: "done"; readonly seq: number }

export const isChildMessage = (message: unknown): message is ChildMessage =>
  typeof message === "object" && message !== null && "strata" in message &&
  (message.strata === "listening" || message.strata === "request" || message.strata === "done")

type Send = (message: ChildMessage) => void

/**
 * Sends over the channel when there is one. The callback form keeps a closed channel (the
 * supervisor died while requests drain) from surfacing as an unhandled `error` event.
 */
export const channelSender = (proc: NodeJS.Process = process): Send | undefined => {
  if (proc.send === undefined) return undefined
  return (message) => {
    if (proc.connected) proc.send?.(message, () => {})
  }
}

const untracked = () => {}

/** Reports each request's start and end to the supervisor; a no-op when `send` is undefined. */
export const requestTracker = (send: Send | undefined): RequestTracker => {
  if (send === undefined) return () => untracked
  let seq = 0
  return ({ requestId, method, path }) => {
    const id = ++seq
    send({ strata: "request", seq: id, requestId, method, path })
    let done = false
    return () => {
      if (done) return
      done = true
      send({ strata: "done", seq: id })
    }
  }
}

/**
 * `npm start`'s server under a supervisor: serves like `STRATA_SUPERVISE=0` does, reports to the
 * supervisor, and stops (finishing requests in flight) when the supervisor's channel closes.
 */
export const serveSupervised = async (): Promise<void> => {
  const { serveFromEnv } = await import("./StartServer.ts")
  const send = channelSender()
  const supervisorGone = new Promise<string>((resolve) => process.once("disconnect", () => resolve("a disconnect from the supervisor")))
  await serveFromEnv({ trackRequest: requestTracker(send) }, {
    onListening: (server) => send?.({ strata: "listening", url: server.url }),
    stopWhen: supervisorGone
  })
}
