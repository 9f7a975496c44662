/**
 * Document readers in child processes: a `DocumentReaders` service that reads each document in a
 * reader process from a bounded pool (effect's `Pool`), so that no document can crash or freeze
 * the server. The server's own thread only sends bytes, receives pages and writes markdown.
 *
 * Limits a document cannot escape:
 * - **Memory.** Each process has a V8 heap cap (`--max-old-space-size`, three quarters of
 *   `memoryMb`) and a watchdog that kills it when its resident memory passes `memoryMb` (buffers
 *   outside the heap, such as an inflated stream, count too). The request gets `LimitExceeded`.
 * - **Time.** At the request's deadline (plus a short grace for the reader's own Timeout to
 *   arrive) the process is killed, not only abandoned: the request's `timeout` ends the work.
 * - **Crashes.** A process that dies for any other reason fails only its own document.
 * A process that was killed, or that grew past 384 MB, is replaced for the next document.
 *
 * Capacity: `size` processes read at once; up to `queue` more documents wait for one, and a
 * document beyond that is refused at once with `Busy` (503 with Retry-After at the HTTP edge)
 * rather than growing an unbounded backlog. Idle processes are stopped after `idleMs`.
 *
 * Processes rather than worker threads (measured on this kind of machine): a native module that
 * aborts (canvas, a decoder) takes a thread's whole process down with it, a thread's memory
 * outside the V8 heap cannot be measured or capped, and a process can be given a lower CPU
 * priority so the server's thread keeps its core under load.
 */
import { Cause, Deferred, Effect, Exit, Fiber, FiberSet, Layer, Option, Pool, Queue, Scope, Stream } from "effect"
import { type ChildProcess, fork } from "node:child_process"
import { readFileSync } from "node:fs"
import { setPriority } from "node:os"
import { fileURLToPath } from "node:url"
import type { DocumentInfo, Page } from "../Document.ts"
import { Busy, Corrupt, DocumentError, DocumentReaders, LimitExceeded, MissingComponent, noReaderFor, Timeout } from "../DocumentReader.ts"
import type { DocumentFormat, ReaderLoad, ReadRequest, ReadResult } from "../DocumentReader.ts"
import { OcrEngine } from "../Ocr.ts"
import { documentErrorOf, type FromReader, type OcrInfo, serialOcrError, type ToReader } from "./ReaderProtocol.ts"

export interface ReaderPoolOptions {
  /** The module the reader processes run; it calls `serveReaders` (ReaderHost.ts). */
  readonly entry: URL
  /** The formats the processes read. */
  readonly supports: (format: DocumentFormat) => boolean
  /** Processes reading at once. */
  readonly size: number
  /** Documents that may wait for a process; one more is refused with `Busy`. */
  readonly queue: number
  /** Resident memory one process may use (MB); its V8 heap is capped at three quarters of it. */
  readonly memoryMb: number
  /** A process left this long without a document is stopped. Default 60 s. */
  readonly idleMs?: number | undefined
}

/** Pages a reader process may send ahead of the consumer. */
const CREDIT = 8
/** How long past the deadline the reader's own Timeout may take to arrive before the process is killed. */
const DEADLINE_GRACE_MS = 500
/** How long a process asked to stop (the request went away) may take to do so before it is killed. */
const CANCEL_GRACE_MS = 1000
/** A process that does not say it is ready in this long is killed (a broken install, a stuck disk). */
const SPAWN_TIMEOUT_MS = 30_000
/** The nice value of reader processes (the server's is 0; 19 is the lowest priority). */
const READER_NICENESS = 10
/** How often a busy process's resident memory is read. */
const WATCH_MS = 200
/** Resident memory past which a process is replaced once its document is done. */
const RECYCLE_MB = 384
/**
 * An idle process still above this a moment after its document (it collects once it is done) is
 * stopped, and the next document gets a fresh one. A reader that read a 10,000-page PDF kept
 * 295 MB after its collection, 120 MB over a fresh one, for as long as it stayed up: what the
 * heap gives back, glibc's arenas and V8's pages do not all return (bench/results/reliability.md).
 */
const TRIM_ABOVE_MB = 256
/** How long after its document an idle process's memory is judged (its collection runs first). */
const TRIM_CHECK_MS = 2000
/** Documents one process reads before it is replaced (fragmentation and caches build up). */
const MAX_JOBS = 200

type KilledFor = "memory" | "deadline" | "cancel" | "shutdown"

interface ReaderProcess {
  readonly child: ChildProcess
  readonly pid: number
  handler: ((message: FromReader) => void) | undefined
  onExit: ((code: number | null, signal: NodeJS.Signals | null) => void) | undefined
  dead: boolean
  killedFor: KilledFor | undefined
  jobs: number
  /** Stops the process when it stays idle (effect's Pool reclaims idle items only when asked for one). */
  idleTimer: ReturnType<typeof setTimeout> | undefined
  trimTimer: ReturnType<typeof setTimeout> | undefined
}

/** Resident memory of a process in MB, from /proc (undefined where there is none). */
const residentMb = (pid: number): number | undefined => {
  try {
    const pages = Number(readFileSync(`/proc/${pid}/statm`, "utf8").split(" ")[1])
    return Number.isFinite(pages) ? (pages * 4096) / 2 ** 20 : undefined
  } catch {
    return undefined
  }
}

const kill = (proc: ReaderProcess, why: KilledFor) => {
  if (proc.dead) return
  proc.killedFor ??= why
  try {
    // The process leads its own group: helpers it started (LibreOffice) go with it.
    process.kill(-proc.pid, "SIGKILL")
  } catch {
    proc.child.kill("SIGKILL")
  }
}

/**
 * glibc's allocator settings that give freed memory back to the system: a fixed mmap threshold
 * (by default it climbs after each large free, and a 23 MB buffer then lands in the heap for good)
 * and an earlier trim. Measured: 51 MB less resident after two 23 MB uploads. The environment's
 * own settings win.
 */
export const RETURN_FREED_MEMORY = { MALLOC_MMAP_THRESHOLD_: "131072", MALLOC_TRIM_THRESHOLD_: "1048576" } as const

/** Node flags for a reader process: the server's own (module conditions, ...) with memory flags of its own. */
const readerExecArgv = (heapMb: number): Array<string> => [
  ...process.execArgv.filter((flag) => !/^--(max-old-space-size|max-semi-space-size|heap-growing-percent|expose-gc|inspect|inspect-brk|debug-port)/.test(flag)),
  `--max-old-space-size=${heapMb}`,
  // The reader collects after a large document, while it waits for the next (ReaderHost.ts).
  "--expose-gc",
  // A small young generation: pdf.js allocates fast and short-lived, and large semi-spaces are never given back.
  "--max-semi-space-size=8"
]

const spawnReader = (entry: URL, memoryMb: number): Effect.Effect<ReaderProcess, DocumentError> =>
  Effect.callback<ReaderProcess, DocumentError>((resumeOnce) => {
    // The process's listeners outlive the start; they must not hold the starting fiber (and with it
    // the request that started the process: a 23 MB upload stayed resident that way).
    let pending: typeof resumeOnce | undefined = resumeOnce
    const resume: typeof resumeOnce = (effect) => {
      const settle = pending
      pending = undefined
      settle?.(effect)
    }
    const startFailed = (message: string) =>
      new DocumentError({ format: "document", reason: new MissingComponent({ component: "reader process", message }) })
    let child: ChildProcess
    try {
      child = fork(fileURLToPath(entry), [], {
        execArgv: readerExecArgv(Math.max(128, Math.floor(memoryMb * 0.75))),
        serialization: "advanced",
        // The process inherits this one's environment: it is how the readers' settings
        // (STRATA_PDF_WORKERS, STRATA_SOFFICE...) cross, read there through Config at its start.
        env: { ...RETURN_FREED_MEMORY, ...process.env },
        stdio: ["ignore", "inherit", "inherit", "ipc"],
        detached: true
      })
    } catch (cause) {
      resume(Effect.fail(startFailed(`a reader process could not be started: ${String(cause)}`)))
      return
    }
    // Readers run at a lower CPU priority than the server: on a machine whose cores they fill,
    // the server's own thread (routing, /health, scrapes) still gets the CPU when it needs it.
    if (child.pid !== undefined) {
      try {
        setPriority(child.pid, READER_NICENESS)
      } catch {
        // Not allowed here (some containers): the reader runs at the server's priority.
      }
    }
    const proc: ReaderProcess = {
      child,
      pid: child.pid ?? -1,
      handler: undefined,
      onExit: undefined,
      dead: false,
      killedFor: undefined,
      jobs: 0,
      idleTimer: undefined,
      trimTimer: undefined
    }
    let ready = false
    const timer = setTimeout(() => {
      kill(proc, "shutdown")
      resume(Effect.fail(startFailed(`a reader process did not start within ${SPAWN_TIMEOUT_MS / 1000} s`)))
    }, SPAWN_TIMEOUT_MS)
    child.on("message", (message: FromReader) => {
      if (!ready && message.type === "ready") {
        ready = true
        clearTimeout(timer)
        idle(proc)
        resume(Effect.succeed(proc))
        return
      }
      proc.handler?.(message)
    })
    child.on("error", () => {
      // Reported by "exit" as well; a failed send to a dead process also lands here.
    })
    child.on("exit", (code, signal) => {
      proc.dead = true
      clearTimeout(timer)
      if (!ready) {
        ready = true
        resume(Effect.fail(startFailed(`a reader process stopped as it started (exit code ${code ?? signal})`)))
        return
      }
      proc.onExit?.(code, signal)
    })
    return Effect.sync(() => {
      clearTimeout(timer)
      kill(proc, "shutdown")
    })
  })

/** An idle process does not keep the server's event loop alive; a busy one does. */
const idle = (proc: ReaderProcess) => {
  proc.child.unref()
  ;(proc.child.channel as { unref?: () => void } | undefined)?.unref?.()
}
const busy = (proc: ReaderProcess) => {
  proc.child.ref()
  ;(proc.child.channel as { ref?: () => void } | undefined)?.ref?.()
}

const post = (proc: ReaderProcess, message: ToReader) => {
  if (proc.dead || !proc.child.connected) return
  try {
    proc.child.send(message)
  } catch {
    // The process is going away; its exit fails the job.
  }
}

/** Why a process died in the middle of a document, as the document's error. */
const exitError = (format: DocumentFormat, proc: ReaderProcess, memoryMb: number, timeoutMs: number, code: number | null, signal: NodeJS.Signals | null) => {
  const error = (reason: DocumentError["reason"]) => new DocumentError({ format, reason })
  switch (proc.killedFor) {
    case "memory":
      return error(new LimitExceeded({ message: `reading the ${format} document needed more than the ${memoryMb} MB of memory a document may use` }))
    case "deadline":
      return error(new Timeout({ message: `reading the ${format} document did not finish within the request's timeout of ${timeoutMs} ms` }))
    case "cancel":
    case "shutdown":
      return error(new Corrupt({ message: `reading the ${format} document was stopped` }))
    case undefined:
      // V8 aborts (SIGABRT, or exit code 134) when the heap cap is reached.
      return signal === "SIGABRT" || code === 134
        ? error(new LimitExceeded({ message: `reading the ${format} document needed more than the ${memoryMb} MB of memory a document may use` }))
        : error(new Corrupt({ message: `the ${format} document made its reader stop unexpectedly (${signal ?? `exit code ${code}`})` }))
  }
}

/** A `DocumentReaders` service over a pool of reader processes. Needs a scope for the pool's lifetime. */
export const make = Effect.fn("ReaderPool.make")(function*(options: ReaderPoolOptions) {
  const ocr = Option.getOrUndefined(yield* Effect.serviceOption(OcrEngine))
  const memoryMb = options.memoryMb
  /** A process that grew past this (a fresh one with pdf.js loaded is about 150-200 MB) is replaced after its document. */
  const recycleMb = Math.min(RECYCLE_MB, Math.floor(memoryMb / 2))
  const trimAboveMb = Math.min(TRIM_ABOVE_MB, recycleMb)
  const size = Math.max(1, options.size)
  /** Processes started and not yet exited, and of them those reading a document (for `load`). */
  const live = new Set<ReaderProcess>()
  let reading = 0
  const started = Effect.tap(spawnReader(options.entry, memoryMb), (proc) =>
    Effect.sync(() => {
      live.add(proc)
      proc.child.once("exit", () => live.delete(proc))
    }))
  const pool = yield* Pool.makeWithTTL({
    acquire: Effect.acquireRelease(started, (proc) => Effect.sync(() => kill(proc, "shutdown"))),
    min: 0,
    max: size,
    concurrency: 1,
    timeToLive: options.idleMs ?? 60_000,
    timeToLiveStrategy: "usage"
  })
  /** Documents holding or waiting for a process. */
  let inFlight = 0
  let nextJob = 1
  const idleMs = options.idleMs ?? 60_000
  const runInPool = yield* FiberSet.makeRuntime<never, void, never>()
  /** An idle process is stopped after `idleMs`; its memory goes back to the system. */
  const stopWhenIdle = (proc: ReaderProcess) => {
    clearTimeout(proc.idleTimer)
    proc.idleTimer = setTimeout(() => {
      proc.idleTimer = undefined
      // Invalidated while available, the process leaves the pool and its release (a kill) runs.
      runInPool(Pool.invalidate(pool, proc))
    }, idleMs)
    proc.idleTimer.unref()
    clearTimeout(proc.trimTimer)
    proc.trimTimer = setTimeout(() => {
      proc.trimTimer = undefined
      const rss = residentMb(proc.pid)
      if (rss === undefined || rss <= trimAboveMb || proc.idleTimer === undefined) return
      clearTimeout(proc.idleTimer)
      proc.idleTimer = undefined
      runInPool(Pool.invalidate(pool, proc))
    }, TRIM_CHECK_MS)
    proc.trimTimer.unref()
  }

  const ocrInfo = (): OcrInfo | undefined =>
    ocr === undefined ? undefined : {
      name: ocr.name,
      preferredDpi: ocr.preferredDpi,
      concurrency: ocr.concurrency,
      oneSeconds: ocr.estimateSeconds(1),
      hundredSeconds: ocr.estimateSeconds(100)
    }

  const read = (request: ReadRequest): Effect.Effect<ReadResult, DocumentError, Scope.Scope> =>
    Effect.gen(function*() {
      const format = request.format
      if (!options.supports(format)) {
        return yield* Effect.fail(noReaderFor(format))
      }
      if (inFlight >= size + options.queue) {
        return yield* Effect.fail(new DocumentError({
          format,
          reason: new Busy({
            message: `The server is reading as many documents as it can (${size}) and ${inFlight - size} more are waiting. Retry shortly.`,
            retryAfterSeconds: 2
          })
        }))
      }
      const scope = yield* Scope.make()
      inFlight++
      yield* Scope.addFinalizer(scope, Effect.sync(() => void inFlight--))
      const proc = yield* Pool.get(pool).pipe(
        Scope.provide(scope),
        Effect.onExit((exit) => (Exit.isSuccess(exit) ? Effect.void : Scope.close(scope, exit)))
      )
      return yield* runJob(proc, request, scope)
    })

  const runJob = (proc: ReaderProcess, request: ReadRequest, scope: Scope.Closeable) =>
    Effect.gen(function*() {
      const job = nextJob++
      reading++
      const format = request.format
      const timeoutMs = Math.max(0, request.options.deadline - Date.now())
      const pages = yield* Queue.make<Page, DocumentError | Cause.Done>()
      const info = yield* Deferred.make<DocumentInfo, DocumentError>()
      const settled = yield* Deferred.make<void>()
      const runFork = yield* FiberSet.makeRuntime<never, void, never>().pipe(Scope.provide(scope))
      const ocrCalls = new Map<number, ReturnType<typeof runFork>>()
      let ended = false
      const fail = (error: DocumentError) => {
        Deferred.doneUnsafe(info, Effect.fail(error))
        Queue.failCauseUnsafe(pages, Cause.fail(error))
      }
      const end = () => {
        ended = true
        Deferred.doneUnsafe(settled, Effect.void)
      }

      proc.handler = (message) => {
        if (!("job" in message) || message.job !== job) return
        switch (message.type) {
          case "info":
            Deferred.doneUnsafe(info, Effect.succeed(message.info))
            return
          case "page":
            Queue.offerUnsafe(pages, message.page)
            return
          case "end":
            end()
            Deferred.doneUnsafe(info, Effect.fail(new DocumentError({ format, reason: new Corrupt({ message: `the ${format} document could not be read` }) })))
            Queue.endUnsafe(pages)
            return
          case "failed":
            end()
            fail(documentErrorOf(message.error))
            return
          case "ocr": {
            const id = message.id
            const reply = (result: Partial<Extract<ToReader, { type: "ocr-done" }>>) => post(proc, { type: "ocr-done", job, id, ...result })
            if (ocr === undefined) {
              reply({ error: { engine: "none", tag: "OcrEngineUnavailable", message: "no OCR engine is configured" } })
              return
            }
            ocrCalls.set(id, runFork(ocr.recognize(message.image, message.options).pipe(
              Effect.match({
                onSuccess: (result) => reply({ result }),
                onFailure: (error) => reply({ error: serialOcrError(error) })
              }),
              Effect.ensuring(Effect.sync(() => void ocrCalls.delete(id)))
            )))
            return
          }
          case "ocr-cancel": {
            const call = ocrCalls.get(message.id)
            ocrCalls.delete(message.id)
            if (call !== undefined) Effect.runFork(Fiber.interrupt(call))
            return
          }
        }
      }
      proc.onExit = (code, signal) => {
        end()
        fail(exitError(format, proc, memoryMb, timeoutMs, code, signal))
      }

      clearTimeout(proc.idleTimer)
      proc.idleTimer = undefined
      clearTimeout(proc.trimTimer)
      proc.trimTimer = undefined
      busy(proc)
      const deadlineTimer = setTimeout(() => {
        if (!ended) kill(proc, "deadline")
      }, timeoutMs + DEADLINE_GRACE_MS)
      const watch = setInterval(() => {
        const rss = residentMb(proc.pid)
        if (rss !== undefined && rss > memoryMb && !ended) kill(proc, "memory")
      }, WATCH_MS)

      let finished = false
      /** Ends the job; the process goes back to the pool, or is replaced. */
      const release = Effect.gen(function*() {
        proc.handler = undefined
        proc.onExit = undefined
        proc.jobs++
        reading--
        const rss = proc.dead ? undefined : residentMb(proc.pid)
        if (proc.dead || !ended || proc.killedFor !== undefined || proc.jobs >= MAX_JOBS || (rss !== undefined && rss > recycleMb)) {
          kill(proc, "shutdown")
          yield* Pool.invalidate(pool, proc)
        } else {
          idle(proc)
          stopWhenIdle(proc)
        }
        yield* Scope.close(scope, Exit.void)
      })
      const finish = Effect.suspend(() => {
        if (finished) return Effect.void
        finished = true
        clearTimeout(deadlineTimer)
        clearInterval(watch)
        if (ended || proc.dead) return release
        // The consumer went away first (cancelled, failed or out of time): ask the reader to stop,
        // then make it. In the background: the request's answer (a timeout, say) does not wait for it.
        post(proc, { type: "cancel", job })
        return Effect.asVoid(Effect.forkDetach(Deferred.await(settled).pipe(
          Effect.timeoutOption(CANCEL_GRACE_MS),
          Effect.andThen(Effect.sync(() => {
            if (!ended) kill(proc, "cancel")
          })),
          Effect.andThen(release)
        )))
      })

      // The caller's scope ends the job even if the pages are never read.
      yield* Effect.addFinalizer(() => finish)
      post(proc, { type: "read", job, bytes: request.bytes, format, fileName: request.fileName, options: request.options, ocr: ocrInfo(), credit: CREDIT })
      const documentInfo = yield* Deferred.await(info).pipe(Effect.onExit((exit) => (Exit.isSuccess(exit) ? Effect.void : finish)))
      const stream = Stream.fromQueue(pages).pipe(
        Stream.tap(() => Effect.sync(() => post(proc, { type: "credit", job, n: 1 }))),
        Stream.ensuring(finish)
      )
      return { info: documentInfo, pages: stream } satisfies ReadResult
    })

  const load = (): ReaderLoad => {
    const alive = [...live].filter((proc) => !proc.dead).length
    return { size, busy: reading, idle: Math.max(0, alive - reading), queued: Math.max(0, inFlight - reading) }
  }

  return DocumentReaders.of({ supports: options.supports, read, load })
})

/** `make` as the `DocumentReaders` layer; the pool and its processes live as long as the layer. */
export const layer = (options: ReaderPoolOptions): Layer.Layer<DocumentReaders> => Layer.effect(DocumentReaders, make(options))
