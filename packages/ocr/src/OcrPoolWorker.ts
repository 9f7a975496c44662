/**
 * The body of one OCR pool thread: builds the engine named in `workerData` once, then answers
 * `recognize` messages one at a time. Results and errors cross the thread boundary as plain
 * data (the error's reason tag and message), never as class instances.
 */
import { Cause, Effect, Exit, Option, Scope } from "effect"
import { parentPort, workerData } from "node:worker_threads"
import type { OcrEngine, OcrImage, RecognizeOptions } from "@strata/core"
import type { EngineChoice } from "./EngineChoice.ts"
import { makeEngine } from "./EngineChoice.ts"

export interface PoolRequest {
  readonly id: number
  readonly image: OcrImage
  readonly options?: RecognizeOptions | undefined
}

export type PoolReply =
  | { readonly id: number; readonly ok: true; readonly result: unknown }
  | { readonly id: number; readonly ok: false; readonly tag: string; readonly message: string }
  | { readonly id: -1; readonly ready: true }
  | { readonly id: -1; readonly ready: false; readonly message: string }

const port = parentPort
if (port === null) throw new Error("OcrPoolWorker must run in a worker thread")

const choice = workerData as EngineChoice
const scope = Effect.runSync(Scope.make())
const started = await Effect.runPromiseExit(Scope.provide(makeEngine(choice), scope))

if (Exit.isFailure(started)) {
  port.postMessage({ id: -1, ready: false, message: String(started.cause) } satisfies PoolReply)
} else {
  const engine: OcrEngine["Service"] = started.value
  port.postMessage({ id: -1, ready: true } satisfies PoolReply)
  port.on("message", async (message: PoolRequest | "close") => {
    if (message === "close") {
      await Effect.runPromise(Scope.close(scope, Exit.void))
      port.close()
      return
    }
    const exit = await Effect.runPromiseExit(engine.recognize(message.image, message.options))
    if (Exit.isSuccess(exit)) {
      port.postMessage({ id: message.id, ok: true, result: exit.value } satisfies PoolReply)
    } else {
      const e = Option.getOrUndefined(Cause.findErrorOption(exit.cause))
      port.postMessage({
        id: message.id,
        ok: false,
        tag: e?.reason?._tag ?? "OcrEngineFailed",
        message: e?.reason?.message ?? String(exit.cause)
      } satisfies PoolReply)
    }
  })
}
