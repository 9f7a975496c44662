/**
 * Furniture leaks and body text wrongly dropped, each PDF page read on its own (a one-page PDF cut
 * out with pdf-lib), so that repetition across pages cannot help: the single-page case of issue 17.
 *
 * - Docling's JSON (a peer's layout model, not truth): a `page_header`/`page_footer` text is
 *   **leaked** when one of our body blocks overlapping its box holds its text; a body text (any
 *   other label) is **dropped** when it sits in one of our furniture blocks and in none of our body
 *   blocks.
 * - DocBank (labels from the papers' LaTeX sources): it has no furniture labels (running heads and
 *   page numbers are `paragraph`), so only drops count, by label, lines of tokens that fall in our
 *   furniture blocks; the `paragraph` count therefore holds true furniture too, and the dropped
 *   paragraph lines are listed so that a reader can tell.
 *
 * The Docling documents are also read whole (`doclingWhole`), where repetition across pages
 * helps, for comparison. Documents are split by their index in the sorted file list: rules were tuned looking only at the
 * even half; the odd half is reported apart. Prints one JSON line.
 *
 *   node -C @strata/source bench/pdf/Furniture.ts [--show even|odd]
 */
import { readdirSync, readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { Effect, Stream } from "effect"
import { PDFDocument } from "pdf-lib"
import { type Block, isFurniture, type Page } from "@strata/core"
import { pdfReader } from "../../packages/pdf/src/index.ts"

type Box = readonly [number, number, number, number]

const corpus = new URL("../../../shared/corpus/", import.meta.url)
const doclingDir = fileURLToPath(new URL("docling/pdf/", corpus))
const docbankDir = fileURLToPath(new URL("docbank/", corpus))
const show = process.argv.includes("--show") ? process.argv[process.argv.indexOf("--show") + 1] : undefined

/** Letters and digits only, lower-cased: furniture text compared whatever the spacing. */
const norm = (s: string) => s.normalize("NFKC").toLowerCase().replace(/[^\p{L}\p{N}]/gu, "")

const overlaps = (a: Box, b: Box, slack = 0.004) =>
  Math.min(a[2], b[2]) + slack > Math.max(a[0], b[0]) && Math.min(a[3], b[3]) + slack > Math.max(a[1], b[1])

/** One page of `bytes` as a PDF of its own. */
const cutPage = async (source: PDFDocument, index: number): Promise<Uint8Array> => {
  const out = await PDFDocument.create()
  const [page] = await out.copyPages(source, [index])
  out.addPage(page)
  return await out.save({ useObjectStreams: false })
}

const readPages = (bytes: Uint8Array): Promise<ReadonlyArray<Page>> =>
  Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const result = yield* pdfReader.read({ bytes, format: "pdf", options: { mode: "fast", deadline: Date.now() + 60_000 } })
    return yield* Stream.runCollect(result.pages)
  })))

const readPage = async (bytes: Uint8Array): Promise<Page | undefined> => (await readPages(bytes))[0]

interface Ours { readonly box: Box; readonly text: string; readonly furniture: boolean; readonly kind: string }
const oursOf = (page: Page): Array<Ours> =>
  page.blocks.filter((b: Block) => b.bbox !== null).map((b: Block) => ({ box: b.bbox as unknown as Box, text: norm(b.content), furniture: isFurniture(b.kind), kind: b.kind }))

interface DoclingJson {
  readonly pages: Record<string, { size: { width: number; height: number } }>
  readonly texts: ReadonlyArray<{ label: string; text: string; prov: ReadonlyArray<{ page_no: number; bbox: { l: number; t: number; r: number; b: number; coord_origin?: string } }> }>
}

interface Counts { furniture: number; leaked: number; body: number; dropped: number; pages: number; details: Array<string> }
const counts = (): Counts => ({ furniture: 0, leaked: 0, body: 0, dropped: 0, pages: 0, details: [] })

/** `whole`: the document read as it is, so that repetition across its pages counts too. */
const docling = async (name: string, into: Counts, whole = false) => {
  const json = JSON.parse(readFileSync(`${doclingDir}${name}.json`, "utf8")) as DoclingJson
  const source = await PDFDocument.load(readFileSync(doclingDir + name))
  const all = whole ? await readPages(new Uint8Array(readFileSync(doclingDir + name))) : []
  for (let index = 0; index < source.getPageCount(); index++) {
    const page = whole ? all[index] : await readPage(await cutPage(source, index))
    if (page === undefined) continue
    into.pages++
    const ours = oursOf(page)
    const size = json.pages[String(index + 1)]?.size
    if (size === undefined) continue
    for (const item of json.texts) {
      for (const prov of item.prov) {
        if (prov.page_no !== index + 1) continue
        const text = norm(item.text)
        if (text.length === 0) continue
        const { l, t, r, b, coord_origin } = prov.bbox
        const [top, bottom] = coord_origin === "TOPLEFT" ? [t, b] : [size.height - t, size.height - b]
        const box: Box = [l / size.width, top / size.height, r / size.width, bottom / size.height]
        const inBody = ours.some((o) => !o.furniture && overlaps(o.box, box) && o.text.includes(text))
        if (item.label === "page_header" || item.label === "page_footer") {
          into.furniture++
          if (inBody) { into.leaked++; into.details.push(`${name} p${index + 1} leaked ${item.label}: ${item.text.slice(0, 80)}`) }
        } else {
          into.body++
          if (!inBody && ours.some((o) => o.furniture && overlaps(o.box, box) && o.text.includes(text))) {
            into.dropped++
            into.details.push(`${name} p${index + 1} dropped ${item.label}: ${item.text.slice(0, 80)}`)
          }
        }
      }
    }
  }
}

interface BankCounts { lines: number; dropped: Record<string, number>; pages: number; details: Array<string> }

/** DocBank's tokens grouped into lines: same label, same top (0-1000 page scale) within 3. */
const docbankLines = (txt: string) => {
  const lines: Array<{ label: string; top: number; tokens: Array<{ text: string; box: Box }> }> = []
  for (const row of txt.split(/\r?\n/)) {
    const f = row.split("\t")
    if (f.length < 10) continue
    const [x0, y0, x1, y1] = f.slice(1, 5).map(Number)
    const token = { text: f[0], box: [x0 / 1000, y0 / 1000, x1 / 1000, y1 / 1000] as Box }
    const line = lines.find((l) => l.label === f[9] && Math.abs(l.top - y0) <= 3)
    if (line === undefined) lines.push({ label: f[9], top: y0, tokens: [token] })
    else line.tokens.push(token)
  }
  return lines
}

const docbank = async (txtName: string, into: BankCounts) => {
  const m = /^(.*)_(\d+)\.txt$/.exec(txtName)
  if (m === null) return
  const source = await PDFDocument.load(readFileSync(`${docbankDir}${m[1]}_black.pdf`), { ignoreEncryption: true })
  const page = await readPage(await cutPage(source, Number(m[2])))
  if (page === undefined) return
  into.pages++
  const ours = oursOf(page)
  for (const line of docbankLines(readFileSync(docbankDir + txtName, "utf8"))) {
    into.lines++
    let gone = 0
    for (const token of line.tokens) {
      const t = norm(token.text)
      const centre: Box = [(token.box[0] + token.box[2]) / 2, (token.box[1] + token.box[3]) / 2, (token.box[0] + token.box[2]) / 2, (token.box[1] + token.box[3]) / 2]
      const fur = ours.some((o) => o.furniture && overlaps(o.box, centre, 0.006) && (t.length === 0 || o.text.includes(t)))
      const body = ours.some((o) => !o.furniture && overlaps(o.box, centre, 0.006) && (t.length === 0 || o.text.includes(t)))
      if (fur && !body) gone++
    }
    if (gone * 2 > line.tokens.length) {
      into.dropped[line.label] = (into.dropped[line.label] ?? 0) + 1
      into.details.push(`${txtName} dropped ${line.label}: ${line.tokens.map((t) => t.text).join(" ").slice(0, 80)}`)
    }
  }
}

const split = <T>(xs: ReadonlyArray<T>) => ({ even: xs.filter((_, i) => i % 2 === 0), odd: xs.filter((_, i) => i % 2 === 1) })

const doclingFiles = split(readdirSync(doclingDir).filter((f) => f.endsWith(".pdf")).sort())
const docbankFiles = split(readdirSync(docbankDir).filter((f) => f.endsWith(".txt")).sort())
const started = performance.now()
const report: Record<string, unknown> = {}
for (const half of ["even", "odd"] as const) {
  const d = counts()
  for (const f of doclingFiles[half]) await docling(f, d)
  const k: BankCounts = { lines: 0, dropped: {}, pages: 0, details: [] }
  for (const f of docbankFiles[half]) await docbank(f, k)
  const w = counts()
  for (const f of doclingFiles[half]) await docling(f, w, true)
  if (show === half) for (const line of [...d.details, ...k.details, ...w.details.map((x) => `whole: ${x}`)]) console.error(line)
  report[half] = {
    docling: { documents: doclingFiles[half].length, pages: d.pages, furniture: d.furniture, leaked: d.leaked, body: d.body, dropped: d.dropped },
    doclingWhole: { pages: w.pages, furniture: w.furniture, leaked: w.leaked, body: w.body, dropped: w.dropped },
    docbank: { pages: k.pages, lines: k.lines, dropped: k.dropped, droppedParagraphLines: k.details.filter((x) => / dropped paragraph: /.test(x)).map((x) => x.replace(/^.*dropped paragraph: /, "")) }
  }
}
report.seconds = Math.round((performance.now() - started) / 100) / 10
process.stdout.write(JSON.stringify(report) + "\n")
