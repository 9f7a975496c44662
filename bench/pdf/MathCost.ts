/**
 * What the math pass (packages/pdf/src/MathRegions.ts) costs: every page of the PDFs in a folder
 * is read once, then the pass is run on it five times alone; prints pages, pages with a run in a
 * math font, display formulas found, and milliseconds a page for the pass and for reading the page.
 *
 *   node -C @strata/source bench/pdf/MathCost.ts <folder of PDFs>/
 */
import { readdirSync, readFileSync } from "node:fs"
import { loadavg } from "node:os"
import { Effect } from "effect"
import { closePdf, openPdf, readPage } from "@strata/pdf"
import { splitMath } from "../../packages/pdf/src/MathRegions.ts"

const dir = process.argv[2]!
let pages = 0, mathPages = 0, passMs = 0, readMs = 0, formulas = 0
for (const f of readdirSync(dir).filter((f) => f.endsWith(".pdf")).sort()) {
  const opened = await Effect.runPromise(openPdf(new Uint8Array(readFileSync(dir + f)), Date.now() + 60_000))
  const doc = opened.doc
  for (let p = 1; p <= doc.numPages; p++) {
    const t0 = performance.now()
    const page = await readPage(doc, p)
    readMs += performance.now() - t0
    pages++
    const t1 = performance.now()
    let split = splitMath(page.runs, page.rules)
    for (let k = 1; k < 5; k++) split = splitMath(page.runs, page.rules)
    passMs += (performance.now() - t1) / 5
    if (page.runs.some((r) => r.math)) mathPages++
    formulas += split.formulas.length
  }
  await Effect.runPromise(closePdf(opened))
}
const round = (n: number) => Math.round(n * 100) / 100
console.log(JSON.stringify({ pages, mathPages, formulas, passMsPerPage: round(passMs / pages), readMsPerPage: round(readMs / pages), load: loadavg().map(round) }))
