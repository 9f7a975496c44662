/**
 * Child process of the PDF benchmark: runs one engine over the given files (after one warm-up
 * file), and prints a JSON line with each file's output, the timing and the peak RSS, so that each
 * engine's memory is measured on its own.
 *
 *   node bench/pdf/EngineChild.ts <engine> <file>...
 */
import { readFileSync } from "node:fs"
import { engines } from "./Engines.ts"

const [name, ...files] = process.argv.slice(2)
const engine = engines[name]
if (engine === undefined) throw new Error(`unknown engine ${name}`)
const results: Array<{ file: string; markdown: string; pages: number; ms: number; error?: string }> = []
// Warm-up: module loading and JIT are not what we measure.
if (files.length > 0) await engine(new Uint8Array(readFileSync(files[0])), files[0]).catch(() => undefined)
for (const file of files) {
  const bytes = new Uint8Array(readFileSync(file))
  const t0 = performance.now()
  try {
    const out = await engine(bytes, file)
    results.push({ file, markdown: out.markdown, pages: out.pages, ms: performance.now() - t0 })
  } catch (error) {
    results.push({ file, markdown: "", pages: 0, ms: performance.now() - t0, error: String(error) })
  }
}
process.stdout.write(JSON.stringify({ engine: name, results, maxRssMb: process.resourceUsage().maxRSS / 1024 }) + "\n")
