/**
 * Reads a long PDF page by page with `parseStream`, drawing a progress bar (on a terminal; plain
 * lines every 250 pages otherwise) and writing the markdown to a file as it comes: the document
 * never sits whole in memory, so a 2,000-page PDF stays at a few hundred MB.
 *
 *   node examples/stream-pdf/index.ts <file.pdf> [out.md]
 */
import { createWriteStream } from "node:fs"
import { readFile } from "node:fs/promises"
import { basename } from "node:path"
import { createStrata } from "strata"

const [file, out = "/dev/null"] = process.argv.slice(2)
if (file === undefined) {
  console.error("usage: node examples/stream-pdf/index.ts <file.pdf> [out.md]")
  process.exit(2)
}

const bar = (done: number, total: number, width = 30) => {
  const filled = total === 0 ? width : Math.round((done / total) * width)
  return `[${"#".repeat(filled)}${".".repeat(width - filled)}] ${done}/${total}`
}

await using strata = createStrata({ ocr: false })
const bytes = new Uint8Array(await readFile(file))
const sink = createWriteStream(out)
const started = performance.now()
let pages = 0
let total = 0
let peakRss = 0
for await (const event of strata.parseStream({ bytes, fileName: basename(file) }, { parsers: [{ type: "pdf", pageMarkers: true }], timeout: 300_000 })) {
  if (event.type === "page") {
    pages++
    sink.write(event.chunk)
    peakRss = Math.max(peakRss, process.memoryUsage.rss())
    if (process.stderr.isTTY) process.stderr.write(`\r${bar(pages, total || pages)}`)
    else if (pages % 250 === 0) process.stderr.write(`${pages} pages\n`)
  } else {
    total = Number(event.data.metadata?.numPages ?? pages)
  }
}
await new Promise<void>((resolve) => sink.end(resolve))
const seconds = (performance.now() - started) / 1000
if (process.stderr.isTTY) process.stderr.write("\n")
console.log(`${pages} pages of ${total} in ${seconds.toFixed(1)} s (${Math.round(pages / seconds)} pages/s), peak RSS ${Math.round(peakRss / 2 ** 20)} MB`)
