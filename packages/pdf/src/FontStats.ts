/**
 * Document font statistics for heading levels: the body size (the size most characters are set
 * in) and the tiers of larger sizes used by short blocks. The reader feeds it every page as it is
 * read (a look-ahead window ahead of the page being finished), so early pages already see the
 * sizes of the pages that follow and memory stays constant: only a histogram is kept.
 */
import type { Line } from "./Lines.ts"

const key = (size: number) => Math.round(size * 2) / 2

export class FontStats {
  private readonly chars = new Map<number, number>()
  private readonly headingSizes = new Map<number, number>()
  private cachedBody: number | undefined
  /** The largest size of a title on the first page, which section tiers stay below. */
  titleSize: number | undefined

  observe(lines: ReadonlyArray<Line>): void {
    for (const line of lines) {
      if (line.rotated) continue
      const k = key(line.size)
      this.chars.set(k, (this.chars.get(k) ?? 0) + line.text.length)
    }
    this.cachedBody = undefined
  }

  /** Records the size of a short block that could be a heading (sizes above the body only count). */
  observeHeading(size: number): void {
    const k = key(size)
    this.headingSizes.set(k, (this.headingSizes.get(k) ?? 0) + 1)
  }

  get bodySize(): number {
    if (this.cachedBody !== undefined) return this.cachedBody
    let best = 10
    let weight = -1
    for (const [size, count] of this.chars) if (count > weight) { best = size; weight = count }
    this.cachedBody = best
    return best
  }

  isHeadingSize(size: number): boolean {
    return size - this.bodySize >= 0.9 && size >= this.bodySize * 1.05
  }

  /** Level 2..6 of a section heading of this size (1 is the title's); bold body-size headings get the level below the tiers. */
  level(size: number): number {
    const tiers: Array<number> = []
    for (const s of [...this.headingSizes.keys()].sort((a, b) => b - a)) {
      if (!this.isHeadingSize(s)) continue
      if (this.titleSize !== undefined && s >= this.titleSize - 0.25) continue
      if (tiers.length === 0 || tiers[tiers.length - 1] - s > 0.75) tiers.push(s)
    }
    if (!this.isHeadingSize(size)) return Math.min(6, 2 + tiers.length)
    let index = tiers.findIndex((t) => size >= t - 0.75)
    if (index < 0) index = tiers.length
    return Math.min(6, 2 + index)
  }
}
