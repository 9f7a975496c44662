/**
 * Generates labelled layout data: for each seed, an HTML document (`Documents.ts`) laid out in
 * Chromium (`Paginate.ts`) and printed to `<seed>.pdf`, with `<seed>.json` beside it holding
 * every labelled block's box per page in PDF points (top-left origin). Deterministic per seed on
 * a machine with the same fonts (`fc-list`, recorded in the JSON) and Chromium.
 *
 * Split (models/layout/README.md): seeds 0-999 are for training, 1000-1999 held out.
 *
 *   node models/layout/data/generate.ts --from 1000 --to 1099 [--out .tmp/layout]
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { parseArgs } from "node:util"
import { chromium } from "playwright-core"
import { makeDocument } from "./Documents.ts"
import { fontFamilies } from "./FontFamilies.ts"
import { paginate } from "./Paginate.ts"

const { values: args } = parseArgs({
  options: {
    from: { type: "string", default: "1000" },
    to: { type: "string", default: "1099" },
    out: { type: "string", default: resolve(import.meta.dirname, "../../../.tmp/layout") },
    force: { type: "boolean", default: false }
  }
})

const families = fontFamilies()
mkdirSync(args.out, { recursive: true })
const browser = await chromium.launch({ executablePath: "/usr/bin/chromium" })
const started = performance.now()
let pages = 0, dropped = 0, made = 0
try {
  const context = await browser.newContext()
  for (let seed = Number(args.from); seed <= Number(args.to); seed++) {
    const pdfPath = join(args.out, `${seed}.pdf`)
    if (!args.force && existsSync(pdfPath) && existsSync(join(args.out, `${seed}.json`))) continue
    const spec = makeDocument(seed, families)
    const page = await context.newPage()
    await page.setViewportSize({ width: Math.ceil(spec.pageWidth), height: Math.ceil(spec.pageHeight) })
    await page.setContent(`<!doctype html><html><head><meta charset="utf-8"><style>@page { margin: 0; } ${spec.css}</style></head><body></body></html>`)
    await page.evaluate(() => document.fonts.ready)
    const laid = await page.evaluate(paginate, spec)
    const pdf = await page.pdf({ width: `${spec.pageWidth}px`, height: `${spec.pageHeight}px`, printBackground: true, margin: { top: "0", right: "0", bottom: "0", left: "0" } })
    await page.close()
    writeFileSync(pdfPath, pdf)
    writeFileSync(join(args.out, `${seed}.json`), JSON.stringify({
      seed,
      paper: spec.paper,
      width: Math.round(spec.pageWidth * 0.75 * 100) / 100,
      height: Math.round(spec.pageHeight * 0.75 * 100) / 100,
      columns: spec.columns,
      fonts: spec.fonts,
      dropped: laid.dropped,
      pages: laid.pages.map((regions, i) => ({ page: i + 1, regions }))
    }))
    pages += laid.pages.length
    dropped += laid.dropped
    made++
  }
} finally {
  await browser.close()
}
console.error(`${made} documents, ${pages} pages (${dropped} blocks too large left out) in ${((performance.now() - started) / 1000).toFixed(1)} s -> ${args.out}`)
