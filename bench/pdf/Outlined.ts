/**
 * How often outlined-text detection (packages/pdf OutlinedText.ts) fires, and what it costs: every
 * page (up to `--pages` per file) of the PDFs under the given folders is read with `readPage`, and
 * the pages with regions are listed so that each can be looked at (`--crops DIR` writes a PNG of
 * each region, rendered as OCR would see it). The detection alone (contours already walked) is
 * timed on each page.
 *
 *   node bench/pdf/Outlined.ts [--pages 5] [--crops DIR] FOLDER...   (one JSON line at the end)
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import sharp from "sharp"
import { Effect } from "effect"
import { closePdf, openPdf, openRenderer, readPage } from "@strata/pdf"
import type { Matrix } from "@strata/core"
import { graphicsFrom } from "../../packages/pdf/src/Graphics.ts"
import { outlinedRegions } from "../../packages/pdf/src/OutlinedText.ts"
import { regionCrop } from "../../packages/pdf/src/OutlinedOcr.ts"

const args = process.argv.slice(2)
const option = (name: string): string | undefined => {
  const at = args.indexOf(name)
  return at >= 0 ? args.splice(at, 2)[1] : undefined
}
const maxPages = Number(option("--pages") ?? 5)
const crops = option("--crops")
const files = (dir: string): Array<string> =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? files(path) : name.toLowerCase().endsWith(".pdf") ? [path] : []
  }).sort()

let pages = 0
let failed = 0
let withRegions = 0
let regions = 0
let detectMs = 0
let worstMs = 0
const fired: Array<string> = []
for (const file of args.flatMap(files)) {
  const bytes = new Uint8Array(readFileSync(file))
  const opened = await Effect.runPromise(Effect.result(openPdf(bytes, Date.now() + 30_000)))
  if (opened._tag === "Failure") continue
  const { doc } = opened.success
  for (let n = 1; n <= Math.min(doc.numPages, maxPages); n++) {
    try {
      const page = await readPage(doc, n)
      pages++
      const proxy = await doc.getPage(n)
      const ops = await proxy.getOperatorList()
      const { contours } = graphicsFrom(ops.fnArray, ops.argsArray, proxy.getViewport({ scale: 1 }).transform as Matrix)
      // The best of five runs: the warm cost, as on the hundredth page of a document, not the first call's compile.
      let dt = Infinity
      for (let r = 0; r < 5; r++) {
        const t0 = performance.now()
        outlinedRegions(contours, page.runs, page.width, page.height)
        dt = Math.min(dt, performance.now() - t0)
      }
      detectMs += dt
      worstMs = Math.max(worstMs, dt)
      if (dt > 1) process.stderr.write(`slow ${file} p${n}: ${dt.toFixed(1)} ms, ${contours.length} contours\n`)
      const found = page.outlined ?? []
      if (found.length === 0) continue
      withRegions++
      regions += found.length
      fired.push(`${file.split("/corpus/").pop()} p${n}: ${found.length} (${page.runs.length} runs)`)
      if (crops !== undefined) {
        const renderer = await openRenderer(bytes)
        for (const [i, region] of found.entries()) {
          const crop = regionCrop(region, page.width, page.height)
          const out = await renderer.renderRegion(n, crop.dpi, crop.region)
          const name = `${file.split("/").pop()}-p${n}-${i}.png`.replace(/[^\w.-]/g, "_")
          writeFileSync(join(crops, name), await sharp(Buffer.from(out.image.data), { raw: { width: out.image.width, height: out.image.height, channels: 1 } }).png().toBuffer())
        }
        await renderer.close()
      }
    } catch {
      failed++
    }
  }
  await Effect.runPromise(closePdf(opened.success))
}
for (const line of fired) process.stderr.write(`${line}\n`)
process.stdout.write(JSON.stringify({
  pages, failed, pagesWithRegions: withRegions, regions,
  detectMsPerPage: Math.round((detectMs / Math.max(1, pages)) * 1000) / 1000,
  worstDetectMs: Math.round(worstMs * 100) / 100
}) + "\n")
process.exit(0)
