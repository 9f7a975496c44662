/**
 * A running estimate of seconds per page (exponentially weighted), so deadline checks use what
 * this machine actually does rather than a constant; it starts from the engine's measured default.
 */
export interface Throughput {
  readonly record: (seconds: number) => void
  readonly secondsPerPage: () => number
  readonly estimate: (pages: number, workers: number) => number
}

export const makeThroughput = (initialSecondsPerPage: number, weight = 0.3): Throughput => {
  let spp = initialSecondsPerPage
  let samples = 0
  return {
    record: (seconds) => {
      if (!Number.isFinite(seconds) || seconds <= 0) return
      // The first real sample replaces the guess outright; later ones are smoothed.
      spp = samples === 0 ? seconds : spp * (1 - weight) + seconds * weight
      samples++
    },
    secondsPerPage: () => spp,
    estimate: (pages, workers) => Math.ceil(pages / Math.max(1, workers)) * spp
  }
}
