/**
 * Page-level parallelism inside one process (opt-in): a small pool of worker threads, each with its own
 * pdf.js, reads pages of a document ahead of the main thread while the main thread lays out the
 * pages already read. pdf.js does four fifths of the work of a page and runs on one thread per
 * document, so this is where the other cores help.
 *
 * Each worker opens a document the first time it is given one of its pages (the bytes travel
 * with that request) and keeps it until the document is closed. Workers start on first use, are
 * shut down after a while idle, and never keep the process alive when nothing waits for them.
 * Replies are outcomes, never rejections: pages read ahead and never taken cannot leave an
 * unhandled rejection behind.
 *
 * The pool is the `PageWorkers` service: it lives as long as its layer (its workers are stopped
 * when the layer is released), sized by `STRATA_PDF_WORKERS` through `Config` or by `layerWith`.
 */
import { Config, Context, Effect, Layer, type Scope } from "effect"
import { Worker } from "node:worker_threads"
import type { PageContent } from "./PageContent.ts"

export type WorkerRequest =
  | {
    readonly type: "page"
    readonly id: number
    readonly docId: number
    readonly pageNumber: number
    readonly deadline: number
    readonly bytes?: Uint8Array
  }
  | { readonly type: "close"; readonly docId: number }

export type PageOutcome =
  | { readonly content: PageContent }
  | { readonly error: string; readonly timeout?: boolean }

export type WorkerReply = PageOutcome & { readonly id: number }

/** A worker with nothing to do for this long is shut down (its pdf.js heap with it). */
const IDLE_MS = 20_000

/**
 * V8's young generation is kept small in the workers: pdf.js allocates fast and short-lived, and
 * with the default semi-spaces each worker's heap grows by tens of MB that are never given back.
 */
const WORKER_YOUNG_MB = 16

/** The worker module beside this one: `.ts` when running from source, `.js` in the built package. */
const workerUrl = new URL(import.meta.url.endsWith(".ts") ? "./PageWorker.ts" : "./PageWorker.js", import.meta.url)

interface Job {
  readonly docId: number
  readonly resolve: (outcome: PageOutcome) => void
}

class PoolWorker {
  readonly worker: Worker
  readonly pending = new Map<number, Job>()
  readonly docs = new Set<number>()
  dead = false
  private idleTimer: ReturnType<typeof setTimeout> | undefined
  private readonly onDeath: (w: PoolWorker) => void
  constructor(onDeath: (w: PoolWorker) => void) {
    this.onDeath = onDeath
    this.worker = new Worker(workerUrl, {
      resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_MB },
      stdout: false,
      stderr: false
    })
    this.worker.unref()
    this.worker.on("message", (reply: WorkerReply) => {
      const job = this.pending.get(reply.id)
      if (job === undefined) return
      this.pending.delete(reply.id)
      this.settled()
      job.resolve(reply)
    })
    const die = (why: string) => {
      if (this.dead) return
      this.dead = true
      if (this.idleTimer !== undefined) clearTimeout(this.idleTimer)
      this.onDeath(this)
      for (const job of this.pending.values()) job.resolve({ error: why })
      this.pending.clear()
    }
    this.worker.on("error", (error) => die(`the page worker failed: ${error.message}`))
    this.worker.on("exit", (code) => die(`the page worker stopped (exit code ${code})`))
  }
  send(request: WorkerRequest, job?: { id: number; job: Job }): void {
    if (job !== undefined) {
      if (this.pending.size === 0) {
        // Something now waits for this worker: it must keep the process alive until it answers.
        this.worker.ref()
        if (this.idleTimer !== undefined) clearTimeout(this.idleTimer)
        this.idleTimer = undefined
      }
      this.pending.set(job.id, job.job)
    }
    this.worker.postMessage(request)
  }
  private settled(): void {
    if (this.pending.size > 0 || this.dead) return
    this.worker.unref()
    if (this.docs.size === 0 && this.idleTimer === undefined) {
      this.idleTimer = setTimeout(() => void this.worker.terminate(), IDLE_MS)
      this.idleTimer.unref()
    }
  }
  closeDocument(docId: number): void {
    if (!this.docs.delete(docId) || this.dead) return
    this.worker.postMessage({ type: "close", docId } satisfies WorkerRequest)
    this.settled()
  }
  /** Stops a worker that may be stuck inside pdf.js (a page past its deadline), or every worker when the pool closes. */
  kill(): void {
    void this.worker.terminate()
  }
}

/** Pages of one document, read by the pool. */
export interface PooledDocument {
  /** Asks for the page to be read (once); the outcome waits until taken. */
  request(pageNumber: number): void
  take(pageNumber: number): Promise<PageOutcome>
  /** Pages asked of the workers so far. */
  readonly requested: number
  /** Stops workers still busy with this document (after a timeout), then closes it. */
  abort(): void
  close(): void
}

export class PagePool {
  private readonly workers: Array<PoolWorker> = []
  private nextJob = 1
  private nextDoc = 1
  readonly size: number
  /** Pages asked of the workers since the pool started (all documents). */
  pagesRequested = 0
  constructor(size: number) {
    this.size = size
  }

  private pick(): PoolWorker {
    let best: PoolWorker | undefined
    for (const w of this.workers) if (best === undefined || w.pending.size < best.pending.size) best = w
    if (best !== undefined && (best.pending.size === 0 || this.workers.length >= this.size)) return best
    const spawned = new PoolWorker((dead) => {
      const at = this.workers.indexOf(dead)
      if (at >= 0) this.workers.splice(at, 1)
    })
    this.workers.push(spawned)
    return spawned
  }

  /** Stops every worker (pages still waiting get an error outcome). */
  shutdown(): void {
    for (const w of this.workers.splice(0)) w.kill()
  }

  openDocument(bytes: Uint8Array, deadline: number): PooledDocument {
    const docId = this.nextDoc++
    const outcomes = new Map<number, Promise<PageOutcome>>()
    const users = new Set<PoolWorker>()
    let requested = 0
    const request = (pageNumber: number) => {
      if (outcomes.has(pageNumber)) return
      const worker = this.pick()
      const id = this.nextJob++
      const first = !worker.docs.has(docId)
      worker.docs.add(docId)
      users.add(worker)
      requested++
      this.pagesRequested++
      outcomes.set(pageNumber, new Promise<PageOutcome>((resolve) => {
        worker.send({ type: "page", id, docId, pageNumber, deadline, ...(first ? { bytes } : {}) }, { id, job: { docId, resolve } })
      }))
    }
    const close = () => {
      outcomes.clear()
      for (const w of users) w.closeDocument(docId)
      users.clear()
    }
    return {
      request,
      take: (pageNumber) => {
        request(pageNumber)
        const outcome = outcomes.get(pageNumber)!
        outcomes.delete(pageNumber)
        return outcome
      },
      get requested() {
        return requested
      },
      abort: () => {
        for (const w of users) if ([...w.pending.values()].some((job) => job.docId === docId)) w.kill()
        close()
      },
      close
    }
  }
}

/**
 * `STRATA_PDF_WORKERS` (0 to 16), else none. Off by default: on a 2-core machine shared with
 * other work the pool gave no measurable speed-up and each worker adds its own pdf.js heap
 * (bench/results/pdf.md).
 */
export const pdfWorkersConfig: Effect.Effect<number> = Config.Number("STRATA_PDF_WORKERS").pipe(
  Config.withDefault(0),
  Effect.map((n) => (Number.isFinite(n) && n >= 0 ? Math.min(16, Math.floor(n)) : 0)),
  Effect.orElseSucceed(() => 0)
)

/** A pool of `size` page workers (0: pages are read on the calling thread), stopped when `scope` closes. */
const make = (size: number): Effect.Effect<PagePool, never, Scope.Scope> =>
  Effect.acquireRelease(Effect.sync(() => new PagePool(Math.max(0, Math.floor(size)))), (pool) => Effect.sync(() => pool.shutdown()))

/** The page worker pool the PDF reader reads long documents with (see `makePdfReader`). */
export class PageWorkers extends Context.Service<PageWorkers, PagePool>()("@strata/pdf/PageWorkers") {
  static readonly make = make
  static readonly layerWith = (size: number): Layer.Layer<PageWorkers> => Layer.effect(PageWorkers, make(size))
  /** Sized by `STRATA_PDF_WORKERS` (default 0: no workers). */
  static readonly layer: Layer.Layer<PageWorkers> = Layer.effect(PageWorkers, Effect.flatMap(pdfWorkersConfig, make))
}
