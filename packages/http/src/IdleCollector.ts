/**
 * Gives memory back after a burst of work. V8 collects when the program allocates, and an idle
 * server allocates nothing: after a 23 MB upload or a 10,000-page document the process kept
 * 100-200 MB for good (bench/results/reliability.md). Once no request has been in flight for a
 * second and resident memory stands well above what it was after the last collection, one full
 * collection runs. Only when Node was started with `--expose-gc` (as `npm start` is); otherwise
 * this does nothing.
 */

export interface IdleCollector {
  readonly started: () => void
  readonly ended: () => void
}

export interface IdleCollectorOptions {
  /** Quiet time before collecting (ms). */
  readonly idleMs?: number | undefined
  /** Growth of resident memory since the last collection that makes one worth its pause (MB). */
  readonly growthMb?: number | undefined
  readonly gc?: (() => void) | undefined
  readonly rss?: (() => number) | undefined
}

export const makeIdleCollector = (options: IdleCollectorOptions = {}): IdleCollector => {
  const gc = options.gc ?? (globalThis as { gc?: () => void }).gc
  const rss = options.rss ?? (() => process.memoryUsage.rss())
  const idleMs = options.idleMs ?? 1000
  // 48 MB let a 23 MB upload's ~44 MB go uncollected for good (bench/results/reliability.md,
  // xlsx-huge-sheet settled at +80 MB in the server); a full collection here pauses 30-55 ms.
  const growth = (options.growthMb ?? 24) * 2 ** 20
  if (gc === undefined) return { started: () => {}, ended: () => {} }
  let inFlight = 0
  let timer: ReturnType<typeof setTimeout> | undefined
  let settled = rss()
  return {
    started: () => {
      inFlight++
      if (timer !== undefined) clearTimeout(timer)
      timer = undefined
    },
    ended: () => {
      inFlight = Math.max(0, inFlight - 1)
      if (inFlight > 0 || timer !== undefined) return
      timer = setTimeout(() => {
        timer = undefined
        if (inFlight > 0 || rss() < settled + growth) return
        gc()
        settled = rss()
        // Freed pages go back over the next moments (external buffers, glibc's trim): the level
        // to grow from is the lower reading, or the next burst must grow past a stale high one.
        setTimeout(() => void (settled = Math.min(settled, rss())), idleMs).unref()
      }, idleMs)
      timer.unref()
    }
  }
}
