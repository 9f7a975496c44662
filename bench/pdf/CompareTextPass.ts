/**
 * The operator-list text (the default) against pdf.js's text pass (`readPage`'s `textPass`
 * option): the page contents of every Docling PDF and every golden test document read both ways,
 * compared run by run (text, position, style), which shows where the two part; extra arguments
 * name more folders of PDFs. (The markdown comparison through the whole reader went with the
 * `STRATA_PDF_TEXT_PASS` switch, issue 12.)
 *
 *   node bench/pdf/CompareTextPass.ts [--limit N] [folder...]
 */
import { readdirSync, readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { goldenCases } from "../../packages/pdf/test/helpers/GoldenCases.ts"

const doclingDir = fileURLToPath(new URL("../../../shared/corpus/docling/pdf/", import.meta.url))
const args = process.argv.slice(2)
const limitAt = args.indexOf("--limit")
const limit = limitAt >= 0 ? Number(args[limitAt + 1]) : Infinity
const folders = args.filter((a, i) => !a.startsWith("--") && (limitAt < 0 || i !== limitAt + 1))

interface Doc { readonly name: string; readonly bytes: Uint8Array }

const documents = async (): Promise<Array<Doc>> => {
  const docs: Array<Doc> = []
  for (const dir of [doclingDir, ...folders]) {
    const base = dir.endsWith("/") ? dir : dir + "/"
    for (const f of readdirSync(base).filter((f) => f.toLowerCase().endsWith(".pdf")).sort().slice(0, limit)) {
      docs.push({ name: base === doclingDir ? f : base + f, bytes: new Uint8Array(readFileSync(base + f)) })
    }
  }
  for (const [name, build] of Object.entries(goldenCases)) docs.push({ name: `golden:${name}`, bytes: await build() })
  return docs
}

/** Page contents both ways, compared run by run (rounded to a tenth of a point). */
const runs = async () => {
  const { documentParams, pdfjs, portReady, skipFontFaces } = await import("../../packages/pdf/src/PdfJs.ts")
  const { readPage } = await import("../../packages/pdf/src/PageContent.ts")
  await portReady()
  const key = (r: { text: string; x0: number; x1: number; baseline: number; size: number; bold: boolean; rtl: boolean; rotated: boolean }) =>
    `${JSON.stringify(r.text)} x0=${r.x0.toFixed(1)} x1=${r.x1.toFixed(1)} y=${r.baseline.toFixed(1)} s=${r.size.toFixed(1)}${r.bold ? " b" : ""}${r.rtl ? " rtl" : ""}${r.rotated ? " rot" : ""}`
  let pages = 0, samePages = 0
  for (const doc of await documents()) {
    const task = pdfjs.getDocument(documentParams(doc.bytes.slice()))
    let pdf
    try {
      pdf = await task.promise
    } catch {
      continue
    }
    skipFontFaces(pdf)
    let shown = 0
    for (let n = 1; n <= Math.min(pdf.numPages, 50); n++) {
      const read = async (old: boolean) => {
        try {
          return await readPage(pdf, n, { textPass: old })
        } catch (cause) {
          return cause instanceof Error ? cause.message : String(cause)
        }
      }
      const a = await read(true)
      const b = await read(false)
      pages++
      if (typeof a === "string" || typeof b === "string") {
        if (a !== b) console.log(`${doc.name} p${n}: ${typeof a === "string" ? `old failed: ${a}` : "old ok"} / ${typeof b === "string" ? `new failed: ${b}` : "new ok"}`)
        else samePages++
        continue
      }
      const ka = a.runs.map(key)
      const kb = b.runs.map(key)
      const setB = new Set(kb)
      const setA = new Set(ka)
      const onlyA = ka.filter((k) => !setB.has(k))
      const onlyB = kb.filter((k) => !setA.has(k))
      const extra = a.unmapped !== b.unmapped || a.width !== b.width || a.height !== b.height ? ` unmapped ${a.unmapped}/${b.unmapped} size ${a.width}x${a.height}/${b.width}x${b.height}` : ""
      if (onlyA.length === 0 && onlyB.length === 0 && extra === "") {
        samePages++
        continue
      }
      if (shown++ < 3) {
        console.log(`${doc.name} p${n}: ${onlyA.length} runs only old, ${onlyB.length} only new${extra}`)
        for (const k of onlyA.slice(0, 6)) console.log(`  - ${k.slice(0, 160)}`)
        for (const k of onlyB.slice(0, 6)) console.log(`  + ${k.slice(0, 160)}`)
      }
    }
    await task.destroy()
  }
  console.log(JSON.stringify({ pages, identicalPages: samePages }))
}

await runs()
