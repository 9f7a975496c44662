/**
 * The operator-list text (the default) against pdf.js's text pass (`STRATA_PDF_TEXT_PASS=1`):
 * every Docling PDF and every golden test document read both ways, markdown compared. Each way
 * runs in a child process of its own, so the page workers see the same switch. With `--runs`,
 * the page contents are compared instead (run by run: text, position, style), in this process,
 * which shows where a markdown difference starts; extra arguments name more folders of PDFs.
 *
 *   node bench/pdf/CompareTextPass.ts [--runs] [--limit N] [folder...]
 */
import { execFileSync } from "node:child_process"
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

const child = async () => {
  const { strata } = await import("./Engines.ts")
  const out: Record<string, string> = {}
  for (const doc of await documents()) {
    try {
      out[doc.name] = (await strata(doc.bytes, doc.name)).markdown
    } catch (cause) {
      out[doc.name] = `ERROR ${cause instanceof Error ? cause.message : String(cause)}`
    }
  }
  process.stdout.write(JSON.stringify(out))
}

/** The first lines where two markdown texts part, a few either side. */
const firstDifferences = (a: string, b: string, max = 6): Array<string> => {
  const la = a.split("\n")
  const lb = b.split("\n")
  const out: Array<string> = []
  let i = 0, j = 0
  while ((i < la.length || j < lb.length) && out.length < max) {
    if (la[i] === lb[j]) {
      i++; j++
      continue
    }
    // Resynchronise on the next line of one side found close ahead in the other.
    let found = false
    for (let k = 1; k < 8 && !found; k++) {
      if (j + k < lb.length && la[i] === lb[j + k]) {
        for (let m = 0; m < k; m++) out.push(`  + ${lb[j + m]}`)
        j += k
        found = true
      } else if (i + k < la.length && la[i + k] === lb[j]) {
        for (let m = 0; m < k; m++) out.push(`  - ${la[i + m]}`)
        i += k
        found = true
      }
    }
    if (!found) {
      if (i < la.length) out.push(`  - ${la[i]}`)
      if (j < lb.length) out.push(`  + ${lb[j]}`)
      i++; j++
    }
  }
  return out
}

const markdown = () => {
  const run = (textPass: boolean): Record<string, string> =>
    JSON.parse(execFileSync(process.execPath, [fileURLToPath(import.meta.url), "--child", ...args], {
      encoding: "utf8", maxBuffer: 1024 * 1024 * 1024, stdio: ["ignore", "pipe", "inherit"],
      env: { ...process.env, STRATA_PDF_TEXT_PASS: textPass ? "1" : "0" }
    })) as Record<string, string>
  const old = run(true)
  const now = run(false)
  let same = 0
  const differ: Array<string> = []
  for (const name of Object.keys(old)) {
    if (old[name] === now[name]) {
      same++
      continue
    }
    differ.push(name)
    console.log(`${name}: differs (old ${old[name].length} chars, new ${(now[name] ?? "").length})`)
    for (const line of firstDifferences(old[name], now[name] ?? "")) console.log(line.slice(0, 200))
  }
  console.log(JSON.stringify({ documents: Object.keys(old).length, identical: same, different: differ.length }))
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
        process.env["STRATA_PDF_TEXT_PASS"] = old ? "1" : "0"
        try {
          return await readPage(pdf, n)
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

if (args.includes("--child")) await child()
else if (args.includes("--runs")) await runs()
else markdown()
