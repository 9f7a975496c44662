/**
 * Prints each seed's generated table (`TableSpecs.ts`) to `<seed>.pdf` with Chromium, and writes
 * `<seed>.json` beside it: the exact grid, the kind, the font, and the table's box on the page in
 * PDF points (top-left origin). One table per page, with a paragraph above and (mostly) below.
 *
 * Split: seeds 0-499 are for tuning, 1000-1499 held out (bench/pdf/TableStructure.ts).
 *
 *   node -C @strata/source bench/pdf/tables/generate.ts --from 0 --to 199 [--out .tmp/tables]
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { parseArgs } from "node:util"
import { chromium } from "playwright-core"
import { fontFamilies } from "../../../models/layout/data/FontFamilies.ts"
import { makeTable } from "./TableSpecs.ts"

const { values: args } = parseArgs({
  options: {
    from: { type: "string", default: "0" },
    to: { type: "string", default: "199" },
    out: { type: "string", default: resolve(import.meta.dirname, "../../../.tmp/tables") },
    force: { type: "boolean", default: false }
  }
})

const families = fontFamilies()
mkdirSync(args.out, { recursive: true })
const browser = await chromium.launch({ executablePath: "/usr/bin/chromium" })
const started = performance.now()
let made = 0
try {
  const context = await browser.newContext()
  const page = await context.newPage()
  // Letter, in CSS px.
  await page.setViewportSize({ width: 816, height: 1056 })
  for (let seed = Number(args.from); seed <= Number(args.to); seed++) {
    const pdfPath = join(args.out, `${seed}.pdf`)
    if (!args.force && existsSync(pdfPath) && existsSync(join(args.out, `${seed}.json`))) continue
    const spec = makeTable(seed, families)
    await page.setContent(`<!doctype html><html><head><meta charset="utf-8"><style>@page { size: 816px 1056px; margin: 0; } ${spec.css}</style></head><body>${spec.html}</body></html>`)
    await page.evaluate(() => document.fonts.ready)
    const box = await page.evaluate(() => {
      const r = document.getElementById("t")!.getBoundingClientRect()
      return { x0: r.left, top: r.top, x1: r.right, bottom: r.bottom, pageBottom: document.documentElement.scrollHeight }
    })
    const pdf = await page.pdf({ width: "816px", height: "1056px", printBackground: true, margin: { top: "0", right: "0", bottom: "0", left: "0" } })
    writeFileSync(pdfPath, pdf)
    const pt = (v: number) => Math.round(v * 0.75 * 100) / 100
    writeFileSync(join(args.out, `${seed}.json`), JSON.stringify({
      seed: spec.seed, kind: spec.kind, font: spec.font, size: spec.size,
      rows: spec.rows, cols: spec.cols, headerRows: spec.headerRows, cells: spec.cells,
      // A table that runs off the first page is marked, and the bench leaves it out.
      onePage: box.bottom <= 1056 && box.pageBottom <= 1056 * 1.02,
      box: { x0: pt(box.x0), top: pt(box.top), x1: pt(box.x1), bottom: pt(box.bottom) }
    }))
    made++
  }
} finally {
  await browser.close()
}
process.stdout.write(`${made} tables in ${((performance.now() - started) / 1000).toFixed(1)} s -> ${args.out}\n`)
