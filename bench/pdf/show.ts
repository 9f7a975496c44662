import { Effect, Stream } from "effect"
import { readFileSync } from "node:fs"
import { writeMarkdown } from "@strata/core"
import { pdfReader } from "@strata/pdf"
const file = process.argv[2]
const bytes = new Uint8Array(readFileSync(file))
const t0 = performance.now()
const result = await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
  const r = yield* pdfReader.read({ bytes, format: "pdf", options: { mode: "fast", deadline: Date.now() + 60000 } })
  const pages = yield* Stream.runCollect(r.pages)
  return { info: r.info, pages }
})))
const out = writeMarkdown(result.pages)
console.log(out.markdown)
if (process.argv[3] === "blocks") for (const p of result.pages) for (const b of p.blocks) console.error(p.pageNumber, b.kind, JSON.stringify(b.content.slice(0, 60)))
console.error(JSON.stringify(result.info), (performance.now() - t0).toFixed(0), "ms")
