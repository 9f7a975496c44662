/**
 * What a line recogniser of our own would cost per dense page (issue 17's 1.5 CPU s target),
 * before one is trained: the CRNN sizes of models/ocr/line-model/architecture.py (random weights,
 * exported to ONNX) run on onnxruntime-node with one thread over a dense A4 page's lines, cut to
 * the model's 32-pixel height. The page shapes follow bench/ocr/DensePages.ts at 300 dpi: one
 * column of 10.5 pt type (about 62 lines of 1,890 px, 44 px tall: 1,375 px wide at 32 px), and two
 * columns of 10 pt (about 2 x 62 lines of 900 px, 42 px tall: 686 px wide). CPU ms per page is the
 * process's user + system time over the page's batches (median of `--rounds` after a warm-up), so
 * a loaded machine inflates wall time but hardly this. Accuracy is not measured: nothing is trained.
 *
 *   /tmp/tv/bin/python models/ocr/line-model/architecture.py --size base --out .tmp/ocr-line/crnn-base.onnx
 *   node_modules/.bin/node bench/ocr/lineModelCost.ts [--rounds 5] [--write]
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs"
import { cpus, loadavg } from "node:os"
import * as ort from "onnxruntime-node"
import { median } from "../Stats.ts"

const args = process.argv.slice(2)
const rounds = Number(args[args.indexOf("--rounds") + 1] ?? 5) || 5
const sizes = ["tiny", "small", "base", "conv-tiny", "conv-small"].filter((size) => existsSync(`.tmp/ocr-line/crnn-${size}.onnx`))
if (sizes.length === 0) throw new Error("no models in .tmp/ocr-line: run models/ocr/line-model/architecture.py first")

const pages = [
  { page: "one column, 10.5 pt", lines: 62, width: 1375 },
  { page: "two columns, 10 pt", lines: 124, width: 686 }
]
const batches = [8, 16]

/** CPU ms to read `lines` lines of `width` px in batches of `batch`. */
const readPage = async (session: ort.InferenceSession, lines: number, width: number, batch: number) => {
  const input = new Float32Array(batch * 32 * width)
  for (let i = 0; i < input.length; i++) input[i] = Math.random()
  const before = process.cpuUsage()
  for (let done = 0; done < lines; done += batch) {
    const n = Math.min(batch, lines - done)
    const tensor = new ort.Tensor("float32", input.subarray(0, n * 32 * width), [n, 1, 32, width])
    await session.run({ image: tensor })
  }
  const used = process.cpuUsage(before)
  return (used.user + used.system) / 1000
}

const rows: Array<{ model: string; page: string; batch: number; cpuMs: number; byRound: Array<number> }> = []
const load0 = loadavg()
for (const size of sizes) {
  const session = await ort.InferenceSession.create(`.tmp/ocr-line/crnn-${size}.onnx`, {
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
    executionMode: "sequential",
    graphOptimizationLevel: "all"
  })
  for (const { page, lines, width } of pages) {
    for (const batch of batches) {
      await readPage(session, Math.min(lines, batch * 2), width, batch)
      const byRound: Array<number> = []
      for (let round = 0; round < rounds; round++) byRound.push(await readPage(session, lines, width, batch))
      rows.push({ model: size, page, batch, cpuMs: median(byRound), byRound })
    }
  }
  await session.release()
}
const load1 = loadavg()
const fmt = (load: Array<number>) => load.map((v) => v.toFixed(2)).join(" / ")
const md = [
  "# OCR: what a line recogniser of our own would cost per dense page (not trained)",
  "",
  `${new Date().toISOString()}, ${cpus().length} cores (${cpus()[0]?.model.trim()}), load average ${fmt(load0)} before and ${fmt(load1)} after.`,
  "`node_modules/.bin/node bench/ocr/lineModelCost.ts --write` (models from models/ocr/line-model/architecture.py; random weights)",
  "",
  `CPU ms to run the CRNN over one dense A4 page's lines at 32 px height, onnxruntime-node, one thread, median of ${rounds} rounds. tiny: 0.33 M parameters; small: 0.71 M; base: 1.28 M.`,
  "",
  "| model | page | lines x width | batch | CPU ms / page | by round |",
  "| --- | --- | --- | ---: | ---: | --- |",
  ...rows.map((row) => {
    const shape = pages.find((p) => p.page === row.page)!
    return `| ${row.model} | ${row.page} | ${shape.lines} x ${shape.width} px | ${row.batch} | ${row.cpuMs.toFixed(0)} | ${row.byRound.map((v) => v.toFixed(0)).join(", ")} |`
  })
].join("\n")
console.log(md)
if (args.includes("--write")) {
  mkdirSync("bench/results", { recursive: true })
  writeFileSync("bench/results/ocr-line-model-cost.md", md + "\n")
  writeFileSync("bench/results/ocr-line-model-cost.json", JSON.stringify({ date: new Date().toISOString(), load: [load0, load1], rounds, rows }, null, 2) + "\n")
}
