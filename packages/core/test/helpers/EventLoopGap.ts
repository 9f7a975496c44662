/** Watches this thread's event loop: a timer ticking every `intervalMs`; `stop` gives the longest gap between ticks (ms). */
export const watchEventLoop = (intervalMs: number): { readonly stop: () => number } => {
  let last = performance.now()
  let worst = 0
  const timer = setInterval(() => {
    const now = performance.now()
    worst = Math.max(worst, now - last)
    last = now
  }, intervalMs)
  return {
    stop: () => {
      clearInterval(timer)
      return worst
    }
  }
}
