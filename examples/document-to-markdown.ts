/** Converts a local document (PDF, DOCX, XLSX, PPTX, EPUB, ...) to markdown with the `strata` library. */
import { readFile } from "node:fs/promises"
import { basename } from "node:path"
import { dispose, parse } from "strata"

const file = process.argv[2]
if (file === undefined) {
  console.error("usage: node examples/document-to-markdown.ts <file>")
  process.exit(2)
}
try {
  const data = await parse(new Uint8Array(await readFile(file)), basename(file), {
    parsers: [{ type: "pdf", pageMarkers: true }]
  })
  process.stdout.write(`${data.markdown as string}\n`)
} finally {
  await dispose()
}
