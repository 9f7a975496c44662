/**
 * Finding words drawn as outlines, on PDFs printed by Chromium with those words as filled paths
 * (test/fixtures/outlined, see make.sh): the poster's title, subtitle and footer are found and
 * nothing else; the logo's name is found without its emblem; a chart page (bars, markers, icons,
 * hatching, a table's rules) and the born-digital golden documents give no region; a drawn table
 * under a one-line heading is mostly outlines. Without OCR (`fast`, or no engine) the page says
 * its outlined words are missing.
 */
import { assert, describe, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { Effect } from "effect"
import { closePdf, openPdf, readPage } from "../src/index.ts"
import { outlinedRegions, type PathContour, rowRejection } from "../src/OutlinedText.ts"
import { cropGroups, cropWords, outlinedLines, outlinesDominate, regionCrop, withOutlinedRuns } from "../src/OutlinedOcr.ts"
import { goldenCases } from "./helpers/GoldenCases.ts"
import { readAll } from "./helpers/ReadAll.ts"

const fixture = (name: string) => new Uint8Array(readFileSync(new URL(`./fixtures/outlined/${name}.pdf`, import.meta.url)))

const pages = (bytes: Uint8Array) =>
  Effect.acquireUseRelease(
    openPdf(bytes, Date.now() + 30_000),
    (opened) => Effect.promise(async () => {
      const out = []
      for (let n = 1; n <= opened.doc.numPages; n++) out.push(await readPage(opened.doc, n))
      return out
    }),
    closePdf
  )

/** A row of glyph-like contours: `widths` side by side on one baseline at y 100. */
const row = (widths: ReadonlyArray<number>, heights: ReadonlyArray<number>, curves: number, segments: number, gap = 1): Array<PathContour> => {
  let x = 50
  return widths.map((w, i) => {
    const c = { x0: x, x1: x + w, top: 100 - heights[i % heights.length], bottom: 100, curves, segments }
    x += w + gap
    return c
  })
}

describe("outlined text regions", () => {
  it.effect("finds the poster's outlined title, subtitle and footer, top to bottom, and not its text layer", () =>
    Effect.gen(function*() {
      const [page] = yield* pages(fixture("poster"))
      const regions = page.outlined ?? []
      assert.strictEqual(regions.length, 3)
      const [title, subtitle, footer] = regions
      // Title at 40 pt near the top, subtitle under it, footer below the two paragraphs of real text.
      assert.isTrue(title.top > 50 && title.bottom < 100 && title.x1 - title.x0 > 400)
      assert.isTrue(subtitle.top > title.bottom && subtitle.bottom < 140)
      const body = page.runs.filter((r) => r.text.includes("science fair returns"))
      assert.strictEqual(body.length, 1)
      assert.isTrue(footer.top > Math.max(...page.runs.map((r) => r.bottom)))
      // No region lies over the text layer.
      for (const r of regions) for (const run of page.runs) assert.isTrue(run.top >= r.bottom || run.bottom <= r.top)
    }))

  it.effect("finds the logo's name without its emblem, and not the star below the text", () =>
    Effect.gen(function*() {
      const [page] = yield* pages(fixture("logo"))
      const regions = page.outlined ?? []
      assert.strictEqual(regions.length, 1)
      // The emblem (a 45 pt disc at x 55..100) stays out of the region; the letters are about 22 pt tall.
      assert.isAbove(regions[0].x0, 100)
      assert.isBelow(regions[0].bottom - regions[0].top, 35)
    }))

  it.effect("finds nothing on a chart page: bars, markers, icons, hatching, legend squares, table rules", () =>
    Effect.gen(function*() {
      const [page] = yield* pages(fixture("chart"))
      assert.isAbove(page.drawings.length, 20)
      assert.isUndefined(page.outlined)
    }))

  it.effect("finds nothing on the born-digital golden documents", () =>
    Effect.gen(function*() {
      let read = 0
      for (const [name, build] of Object.entries(goldenCases)) {
        for (const page of yield* pages(yield* Effect.promise(build))) {
          read++
          assert.isUndefined(page.outlined, `${name} page ${page.pageNumber}`)
        }
      }
      assert.isAbove(read, 10)
    }), 60_000)

  it("tells set type from rows of shapes", () => {
    const word = [9, 5, 8, 13, 8, 5, 8]
    assert.isUndefined(rowRejection(row(word, [10, 7, 7, 7, 10, 7, 7], 6, 12)))
    // Bars of a chart: heights all over; legend squares and markers: all alike.
    assert.strictEqual(rowRejection(row([8, 8, 8, 8, 8], [4, 10, 7, 13, 5], 0, 4)), "heights")
    assert.strictEqual(rowRejection(row([10, 10, 10, 10], [10], 4, 4, 3)), "uniform")
    // Straight rectangles of varied widths on one baseline (a stacked bar, cells): no curves.
    assert.strictEqual(rowRejection(row(word, [10, 7, 7, 7, 10, 7, 7], 0, 4)), "straight")
    // Letters spaced like icons.
    assert.strictEqual(rowRejection(row(word, [10, 7, 7, 7, 10, 7, 7], 6, 12, 12)), "spacing")
    assert.strictEqual(rowRejection(row([9, 5], [10], 6, 12)), "few")
    // Figures of a table share one width but not one outline ("2x0,37"): set type all the same.
    const figures = row([3.2, 3.3, 3.2, 3.2, 3.3], [6], 0, 0).map((c, i) => ({ ...c, curves: [13, 0, 9, 8, 2][i], segments: [21, 12, 9, 16, 7][i] }))
    assert.isUndefined(rowRejection(figures))
  })

  it("drops a row that text of the text layer covers (a shadow or highlight behind real words), or off the page", () => {
    const contours = row([9, 5, 8, 13, 8, 5, 8], [10, 7, 7, 7, 10, 7, 7], 6, 12)
    const run = (x0: number, top: number) => ({
      text: "covering", x0, x1: x0 + 72, top, bottom: top + 14, baseline: top + 12, size: 12,
      bold: false, italic: false, mono: false, math: false, symbol: false, rotated: false, rtl: false
    })
    // Elsewhere on the page, a line of the text layer.
    assert.strictEqual(outlinedRegions(contours, [run(48, 400)], 612, 792).length, 1)
    assert.strictEqual(outlinedRegions(contours, [run(48, 400), run(48, 88)], 612, 792).length, 0)
    // Off the visible page, and on a page with no text layer (whole-page OCR reads that one): none.
    assert.strictEqual(outlinedRegions(contours.map((c) => ({ ...c, x0: c.x0 + 700, x1: c.x1 + 700 })), [run(48, 400)], 612, 792).length, 0)
    assert.strictEqual(outlinedRegions(contours, [], 612, 792).length, 0)
  })

  it("crops a region with a margin, at a resolution that makes its letters about 48 px tall", () => {
    const crop = regionCrop({ x0: 100, x1: 300, top: 100, bottom: 130, rows: 1 }, 600, 800)
    assert.strictEqual(crop.dpi, 115)
    assert.deepStrictEqual(crop.region.map((v) => Math.round(v * 1000)), [142, 106, 525, 181])
    // Small print is capped at 400 dpi.
    assert.strictEqual(regionCrop({ x0: 100, x1: 150, top: 100, bottom: 106 }, 600, 800).dpi, 400)
  })

  it.effect("a table drawn as outlines under a one-line heading: outlines carry most of the page's words", () =>
    Effect.gen(function*() {
      const [table] = yield* pages(fixture("table"))
      assert.isAbove((table.outlined ?? []).reduce((n, r) => n + (r.glyphs ?? 0), 0), 100)
      assert.isTrue(outlinesDominate(table))
      // The poster's three outlined lines are fewer letters than its two paragraphs.
      const [poster] = yield* pages(fixture("poster"))
      assert.isFalse(outlinesDominate(poster))
    }))

  it("reads regions within a line of each other in one crop, and keeps the text layer's words once", () => {
    const title = { x0: 50, x1: 500, top: 60, bottom: 92, rows: 1 }
    const subtitle = { x0: 50, x1: 350, top: 112, bottom: 130, rows: 1 }
    const footer = { x0: 50, x1: 360, top: 300, bottom: 320, rows: 1 }
    const groups = cropGroups([title, subtitle, footer])
    assert.deepStrictEqual(groups.map((g) => [g.top, g.bottom, g.rows]), [[60, 130, 4], [300, 320, 1]])
    const run = (text: string, x0: number, top: number, confidence?: number) => ({
      text, x0, x1: x0 + 60, top, bottom: top + 12, baseline: top + 10, size: 10,
      bold: false, italic: false, mono: false, math: false, symbol: false, rotated: false, rtl: false,
      ...(confidence !== undefined ? { confidence } : {})
    })
    const page = {
      pageNumber: 1, width: 612, height: 792, runs: [run("native", 50, 140)], rules: [], images: [], unmapped: 0, graphicsFailed: false,
      drawings: [{ x0: 52, x1: 498, top: 62, bottom: 90 }, { x0: 50, x1: 400, top: 500, bottom: 600 }], outlined: [title]
    }
    const read = withOutlinedRuns(page, [{ x0: 40, x1: 510, top: 50, bottom: 135 }], [run("Title", 60, 65, 0.9), run("again", 55, 141, 0.8)])
    // The OCR'd word over the text layer's word is dropped; the outlines read leave the drawings; the regions are done.
    assert.deepStrictEqual(read.runs.map((r) => r.text), ["native", "Title"])
    assert.deepStrictEqual(read.drawings.map((d) => d.top), [500])
    assert.isUndefined(read.outlined)
  })

  it("keeps what was read in a crop only where it is words enough for its glyphs", () => {
    const word = (text: string, confidence: number) => ({ text, bbox: [0, 0, 10, 10] as const, confidence })
    const line = (words: Array<ReturnType<typeof word>>) => ({ text: words.map((w) => w.text).join(" "), bbox: [0, 0, 100, 10] as const, confidence: 0.8, words })
    const result = { engine: "test", width: 100, height: 40, lines: [line([word("Summer", 0.9), word("~", 0.95), word("IT", 0.33)]), line([word("=", 0.9)])] }
    // Unsure words go, and so does a line of symbols only.
    assert.deepStrictEqual(outlinedLines(result, 0.5).map((l) => l.text), ["Summer ~"])
    const run = (text: string, x0: number, top: number) => ({
      text, x0, x1: x0 + 40, top, bottom: top + 12, baseline: top + 10, size: 10,
      bold: false, italic: false, mono: false, math: false, symbol: false, rotated: false, rtl: false
    })
    const caption = run("caption", 100, 200)
    const read = [run("Fair", 10, 50), run("caption", 100, 200)]
    // "Fair" off the text layer: 4 characters for 6 glyphs is enough; for 9 it is not (the shapes were no letters).
    assert.deepStrictEqual(cropWords([caption], read, 6).map((r) => r.text), ["Fair"])
    assert.deepStrictEqual(cropWords([caption], read, 9), [])
  })

  it.effect("fast mode leaves outlined words unread and says so", () =>
    Effect.gen(function*() {
      const out = yield* readAll(fixture("poster"), { mode: "fast" })
      assert.notInclude(out.markdown, "Summer Science Fair")
      assert.include(out.markdown, "science fair returns")
      assert.isTrue(out.pages[0].diagnostics?.some((d) => d.code === "ocr_skipped" && d.message.includes("3 regions")))
      assert.isTrue(out.pages[0].blocks.every((b) => b.source === "native_text"))
    }))
})
