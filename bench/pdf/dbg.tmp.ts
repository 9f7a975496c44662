import { Effect } from "effect"
import { readFileSync } from "node:fs"
import { openPdf, readPageContent } from "@strata/pdf"
const bytes = new Uint8Array(readFileSync(process.argv[2]))
const o = await Effect.runPromise(openPdf(bytes, Date.now() + 10000))
const c = await Effect.runPromise(readPageContent(o.doc, Number(process.argv[3] ?? 1), Date.now() + 10000))
for (const r of c.runs.slice(0, Number(process.argv[4] ?? 20))) console.log(JSON.stringify(r.text), r.x0.toFixed(1), r.x1.toFixed(1), r.baseline.toFixed(1), r.size.toFixed(1), r.rtl, r.bold)
console.log(c.rules.length)
