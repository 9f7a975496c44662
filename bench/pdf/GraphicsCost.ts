/**
 * What reading every page's operator list would cost: a generated document of plain running text
 * (where the reader's gates keep the operator list closed) read with the gates and, in another
 * process, with `STRATA_PDF_ALL_GRAPHICS=1`. Prints one JSON line per run; CPU-seconds are the
 * steadier figure on a shared machine.
 *
 *   node bench/pdf/GraphicsCost.ts [pages]          (spawns both configurations, interleaved, 3 times)
 */
import { execFileSync } from "node:child_process"
import { fileURLToPath } from "node:url"
import { Effect, Stream } from "effect"
import { pdfReader } from "../../packages/pdf/src/index.ts"
import { DUIS, LOREM, makePdf } from "../../packages/pdf/test/helpers/MakePdf.ts"

const pages = Number(process.argv[2] ?? 300)
if (process.argv[3] === "child") {
  const bytes = await makePdf((b) => {
    for (let i = 1; i <= pages; i++) b.page((c) => {
      let y = c.text(72, 60, `Section ${i}`, 14, "bold")
      for (let k = 0; k < 6; k++) y = c.paragraph(72, y + 8, 468, k % 2 === 0 ? LOREM : DUIS)
    })
  })
  const read = () => Effect.runPromise(Effect.gen(function*() {
    const result = yield* pdfReader.read({ bytes: bytes.slice(), format: "pdf", options: { mode: "fast", deadline: Date.now() + 600_000 } })
    return (yield* Stream.runCollect(result.pages)).length
  }))
  await read()
  const cpu0 = process.cpuUsage()
  const t0 = performance.now()
  const n = await read()
  const cpu = process.cpuUsage(cpu0)
  process.stdout.write(JSON.stringify({ pages: n, pagesPerSecond: Math.round(n / ((performance.now() - t0) / 1000)), pagesPerCpuSecond: Math.round(n / ((cpu.user + cpu.system) / 1e6)) }) + "\n")
} else {
  const self = fileURLToPath(import.meta.url)
  for (let rep = 0; rep < 3; rep++) {
    for (const [name, env] of [["gated", {}], ["every page", { STRATA_PDF_ALL_GRAPHICS: "1" }]] as const) {
      const out = execFileSync(process.execPath, [self, String(pages), "child"], { encoding: "utf8", env: { ...process.env, ...env } })
      console.log(name, out.trim())
    }
  }
}
