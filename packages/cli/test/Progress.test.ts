/** The progress display: a bar redrawn in place on a terminal, plain lines elsewhere. */
import { describe, expect, it } from "vitest"
import { barLine, makeProgress, plainLine, rate } from "../src/Progress.ts"

describe("Progress", () => {
  it("redraws one bar in place on a terminal, with failures on lines of their own", () => {
    const written: Array<string> = []
    let now = 0
    const progress = makeProgress({ line: () => expect.unreachable(), tty: (t) => written.push(t) }, 4, () => now)
    now = 1000
    progress.finished({ path: "a.pdf", ok: true, ms: 10 })
    now = 2000
    progress.finished({ path: "b.pdf", ok: false, ms: 10, detail: "DocumentUnreadable: corrupt" })
    progress.close()
    const text = written.join("")
    expect(written.every((w) => w.startsWith("\r\x1b[2K") || w === "\n")).toBe(true)
    expect(text).toContain("failed b.pdf: DocumentUnreadable: corrupt\n")
    expect(written.at(-2)).toBe("\r\x1b[2K[############------------] 2/4  1 failed  1.0 docs/s  ETA 0:02")
    expect(written.at(-1)).toBe("\n")
  })

  it("throttles redraws of the bar", () => {
    const written: Array<string> = []
    const progress = makeProgress({ line: () => {}, tty: (t) => written.push(t) }, 100, () => 5)
    for (let i = 0; i < 50; i++) progress.finished({ path: `${i}.csv`, ok: true, ms: 1 })
    expect(written.length).toBe(1)
  })

  it("writes one plain line per document without a terminal", () => {
    const lines: Array<string> = []
    const progress = makeProgress({ line: (l) => lines.push(l) }, 2)
    progress.finished({ path: "a.pdf", ok: true, ms: 12.4 })
    progress.finished({ path: "b.pdf", ok: false, ms: 3, detail: "TimedOut: too slow" })
    progress.close()
    expect(lines).toEqual(["[1/2] ok a.pdf (12 ms)", "[2/2] failed b.pdf: TimedOut: too slow"])
  })

  it("computes docs/s and an ETA once something is done", () => {
    expect(rate(0, 10, 1000)).toEqual({})
    expect(rate(5, 10, 2000)).toEqual({ perSecond: 2.5, etaMs: 2000 })
    expect(barLine({ done: 0, failed: 0 }, 3, 0)).toBe("[------------------------] 0/3")
    expect(barLine({ done: 3, failed: 0 }, 3, 3_600_000)).toContain("ETA 0:00")
    expect(plainLine({ path: "x", ok: true, ms: 1 }, 1, 1)).toBe("[1/1] ok x (1 ms)")
  })
})
