/**
 * A pool of OCR engines on worker threads, sized to the machine (cores, and free memory divided
 * by the engine's working set), behind the same `OcrEngine` service as a single engine. Pages
 * are queued FIFO to the next idle thread; images are transferred, not copied.
 *
 * Deadlines: `estimateSeconds` uses the measured seconds per page, so readers can refuse up
 * front (`ensureOcrFits`) when the pages left cannot fit; a page whose deadline passes while
 * queued fails with `OcrTimeout`, and a page overrunning it kills and replaces its thread (wasm
 * and onnxruntime jobs cannot be interrupted otherwise).
 */
import { Effect, Layer } from "effect"
import { availableParallelism, freemem } from "node:os"
import { Worker } from "node:worker_threads"
import { OcrEngine, OcrEngineFailed, OcrEngineUnavailable, OcrError, OcrInvalidImage, OcrTimeout } from "@strata/core"
import type { OcrImage, OcrResult, RecognizeOptions } from "@strata/core"
import type { EngineChoice } from "./EngineChoice.ts"
import { defaultEngine, engineMemoryMb, engineSecondsPerPage } from "./EngineChoice.ts"
import type { PoolReply, PoolRequest } from "./OcrPoolWorker.ts"
import { makeThroughput } from "./Throughput.ts"

export interface OcrPoolOptions {
  readonly engine?: EngineChoice | undefined
  /** Threads; default min(cores, free memory / engine working set), at least 1. */
  readonly size?: number | undefined
  /** V8 heap cap per thread (MB); native buffers (wasm, onnxruntime) come on top. */
  readonly maxHeapMb?: number | undefined
}

export const defaultPoolSize = (engine: EngineChoice): number =>
  Math.max(1, Math.min(availableParallelism(), Math.floor((freemem() / 2 ** 20) * 0.5 / engineMemoryMb(engine))))

interface Job {
  readonly id: number
  readonly request: PoolRequest
  readonly transfer: Array<ArrayBuffer>
  readonly deadline: number | undefined
  readonly resolve: (reply: PoolReply) => void
}

interface Slot {
  worker: Worker
  ready: Promise<void>
  busy: Job | undefined
  timer: ReturnType<typeof setTimeout> | undefined
}

/** The worker module beside this one: `.ts` when running from source, `.js` in the built package. */
const workerUrl = new URL(import.meta.url.endsWith(".ts") ? "./OcrPoolWorker.ts" : "./OcrPoolWorker.js", import.meta.url)

export const make = Effect.fn("OcrPool.make")(function*(options: OcrPoolOptions = {}) {
  const choice = options.engine ?? defaultEngine
  const name = choice._tag
  const size = options.size ?? defaultPoolSize(choice)
  const throughput = makeThroughput(engineSecondsPerPage(choice))
  const queue: Array<Job> = []
  let nextId = 1
  let closed = false

  const spawn = (): Slot => {
    const worker = new Worker(workerUrl, {
      // Each thread runs its engine single-threaded: the pool is the parallelism.
      workerData: choice._tag === "tesseract" ? choice : { ...choice, threads: 1 },
      resourceLimits: { maxOldGenerationSizeMb: options.maxHeapMb ?? 1024 }
    })
    const slot: Slot = { worker, ready: Promise.resolve(), busy: undefined, timer: undefined }
    slot.ready = new Promise<void>((resolve, reject) => {
      const onFirst = (m: PoolReply) => {
        if (m.id !== -1 || !("ready" in m)) return
        worker.off("message", onFirst)
        if (m.ready) resolve()
        else reject(new Error(m.message))
      }
      worker.on("message", onFirst)
      worker.once("error", reject)
    })
    // Every use of `ready` handles its failure; this keeps a thread that fails to start (no
    // model) from also being an unhandled rejection when it is respawned while the pool closes.
    slot.ready.catch(() => undefined)
    worker.on("message", (m: PoolReply) => {
      if (m.id === -1 || slot.busy === undefined || slot.busy.id !== m.id) return
      finish(slot, m)
    })
    worker.on("error", (error) => {
      const job = slot.busy
      if (job !== undefined) finish(slot, { id: job.id, ok: false, tag: "OcrEngineFailed", message: `OCR thread crashed: ${error.message}` })
    })
    worker.on("exit", () => {
      if (closed) return
      const i = slots.indexOf(slot)
      if (i >= 0 && slot.worker === worker) {
        const job = slot.busy
        slot.busy = undefined
        if (job !== undefined) job.resolve({ id: job.id, ok: false, tag: "OcrEngineFailed", message: "OCR thread exited" })
        slots[i] = spawn()
        pump()
      }
    })
    return slot
  }

  const finish = (slot: Slot, reply: PoolReply) => {
    const job = slot.busy
    if (job === undefined) return
    slot.busy = undefined
    if (slot.timer !== undefined) clearTimeout(slot.timer)
    slot.timer = undefined
    job.resolve(reply)
    pump()
  }

  const pump = () => {
    for (const slot of slots) {
      if (slot.busy !== undefined) continue
      const job = queue.shift()
      if (job === undefined) return
      if (job.deadline !== undefined && job.deadline <= Date.now()) {
        job.resolve({ id: job.id, ok: false, tag: "OcrTimeout", message: "the time budget ran out while the page waited for OCR" })
        continue
      }
      slot.busy = job
      const started = Date.now()
      const resolve = job.resolve
      // Wrap to measure the time actually spent on the thread.
      slot.busy = { ...job, resolve: (reply) => {
        if ("ok" in reply && reply.ok) throughput.record((Date.now() - started) / 1000)
        resolve(reply)
      } }
      if (job.deadline !== undefined) {
        slot.timer = setTimeout(() => {
          // The engine cannot be interrupted mid-page: replace the thread.
          const stuck = slot.busy
          slot.busy = undefined
          slot.timer = undefined
          // Swap the thread out before resolving: resolving may synchronously queue the next page.
          const i = slots.indexOf(slot)
          if (i >= 0 && !closed) slots[i] = spawn()
          void slot.worker.terminate()
          stuck?.resolve({ id: job.id, ok: false, tag: "OcrTimeout", message: "the time budget ran out during OCR" })
          pump()
        }, Math.max(1, job.deadline - Date.now()))
      }
      slot.ready.then(
        () => slot.worker.postMessage(job.request, job.transfer),
        (error: Error) => finish(slot, { id: job.id, ok: false, tag: "OcrEngineUnavailable", message: error.message })
      )
    }
  }

  const slots: Array<Slot> = []
  for (let i = 0; i < size; i++) slots.push(spawn())
  yield* Effect.addFinalizer(() =>
    Effect.promise(async () => {
      closed = true
      for (const job of queue.splice(0)) job.resolve({ id: job.id, ok: false, tag: "OcrEngineFailed", message: "the OCR pool closed" })
      await Promise.all(slots.map(async (s) => {
        if (s.timer !== undefined) clearTimeout(s.timer)
        await s.worker.terminate()
      }))
    })
  )
  // Fail at construction if the engine cannot start at all (missing models), not on the first page.
  yield* Effect.tryPromise({
    try: () => slots[0].ready,
    catch: (cause) => new OcrError({ engine: name, reason: new OcrEngineUnavailable({ message: String(cause) }) })
  })

  const toError = (tag: string, message: string): OcrError => {
    const reason = tag === "OcrTimeout"
      ? new OcrTimeout({ message })
      : tag === "OcrInvalidImage"
      ? new OcrInvalidImage({ message })
      : tag === "OcrEngineUnavailable"
      ? new OcrEngineUnavailable({ message })
      : new OcrEngineFailed({ message })
    return new OcrError({ engine: name, reason })
  }

  const recognize = (image: OcrImage, recognizeOptions?: RecognizeOptions): Effect.Effect<OcrResult, OcrError> =>
    Effect.callback<OcrResult, OcrError>((resume) => {
      if (closed) {
        resume(Effect.fail(toError("OcrEngineFailed", "the OCR pool is closed")))
        return
      }
      const id = nextId++
      // Copy into a buffer of its own so transferring it cannot detach the caller's memory.
      const data = new Uint8Array(image.data)
      const request: PoolRequest = { id, image: { ...image, data }, options: recognizeOptions }
      const job: Job = {
        id,
        request,
        transfer: [data.buffer as ArrayBuffer],
        deadline: recognizeOptions?.deadline,
        resolve: (reply) => {
          if ("ok" in reply && reply.ok) resume(Effect.succeed(reply.result as OcrResult))
          else if ("ok" in reply) resume(Effect.fail(toError(reply.tag, reply.message)))
        }
      }
      queue.push(job)
      pump()
      // Interrupted (a cancelled request): a page still queued leaves the queue; one already on a
      // thread finishes there (engines cannot be stopped mid-page) and its result is dropped.
      return Effect.sync(() => {
        const at = queue.indexOf(job)
        if (at >= 0) queue.splice(at, 1)
      })
    })

  const queued = () => queue.length
  const busy = () => slots.filter((s) => s.busy !== undefined).length
  const engine: OcrPoolService = {
    ...OcrEngine.of({
      name,
      preferredDpi: choice._tag === "tesseract" ? choice.dpi ?? 300 : 200,
      concurrency: size,
      estimateSeconds: (pages) => throughput.estimate(pages + queued() + busy(), size),
      recognize
    }),
    queued,
    busy
  }
  return engine
})

/** The pool's `OcrEngine`, with what it holds right now (for tests and metrics). */
export type OcrPoolService = OcrEngine["Service"] & {
  /** Pages waiting for a thread. */
  readonly queued: () => number
  /** Threads recognising a page. */
  readonly busy: () => number
}

export const layer = (options: OcrPoolOptions = {}): Layer.Layer<OcrEngine, OcrError> => Layer.effect(OcrEngine, make(options))
