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
 * even half; the odd half is reported apart.
 *
 * Side by side (`markdown`): every page's markdown, ours (MarkdownWriter) and Firecrawl's
 * pdf-inspector's (its per-page markdown, in a child process; the same one-page PDFs, and the
 * same whole documents), judged by one piece of code that needs no blocks (MarkdownFurniture.ts).
 * Prints one JSON line.
 *
 *   node -C @strata/source bench/pdf/Furniture.ts [--show even|odd]
 */
import { readdirSync, readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { Effect, Stream } from "effect"
import { PDFDocument } from "pdf-lib"
import { type Block, isFurniture, MarkdownWriter, type Page } from "@strata/core"
import { pdfReader } from "../../packages/pdf/src/index.ts"
import { Inspector } from "./Inspector.ts"
import { bankMarkdownCounts, type BankMarkdownCounts, markdownCounts, type MarkdownCounts, type PageItem, scoreBankPage, scoreDoclingPage } from "./MarkdownFurniture.ts"

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
  readonly texts: ReadonlyArray<{ label: string; text: string; parent?: { $ref: string }; prov: ReadonlyArray<{ page_no: number; bbox: { l: number; t: number; r: number; b: number; coord_origin?: string } }> }>
  readonly tables?: ReadonlyArray<{ prov: ReadonlyArray<{ page_no: number }>; data: { table_cells: ReadonlyArray<{ text: string }> } }>
}

const inspector = new Inspector()
type Engine = "strata" | "pdf-inspector"
/** One page's markdown, ours: a writer of its own, so that it holds that page alone. */
const strataMarkdown = (page: Page) => new MarkdownWriter().push(page).page.markdown
/** pdf-inspector's markdown of each page of `bytes`; a PDF it fails on reads as empty pages (counted in `failures`). */
const inspectorPages = async (bytes: Uint8Array, label: string): Promise<ReadonlyArray<string>> => {
  const out = await inspector.pages(bytes, label)
  return "pages" in out ? out.pages : []
}

interface Counts { furniture: number; leaked: number; body: number; dropped: number; pages: number; details: Array<string> }
const counts = (): Counts => ({ furniture: 0, leaked: 0, body: 0, dropped: 0, pages: 0, details: [] })

/** `whole`: the document read as it is, so that repetition across its pages counts too. */
const docling = async (name: string, into: Counts, md: Record<Engine, MarkdownCounts>, whole = false) => {
  const json = JSON.parse(readFileSync(`${doclingDir}${name}.json`, "utf8")) as DoclingJson
  const bytes = new Uint8Array(readFileSync(doclingDir + name))
  const source = await PDFDocument.load(bytes)
  const all = whole ? await readPages(bytes) : []
  const theirsWhole = whole ? await inspectorPages(bytes, name) : []
  for (let index = 0; index < source.getPageCount(); index++) {
    const cut = whole ? undefined : await cutPage(source, index)
    const page = cut === undefined ? all[index] : await readPage(cut)
    if (page === undefined) continue
    into.pages++
    const ours = oursOf(page)
    const size = json.pages[String(index + 1)]?.size
    if (size === undefined) continue
    const items: Array<PageItem & { inPicture: boolean }> = json.texts.flatMap((item) => item.prov.filter((prov) => prov.page_no === index + 1).map((prov) => {
      const { l, t, r, b, coord_origin } = prov.bbox
      const [top, bottom] = coord_origin === "TOPLEFT" ? [t, b] : [size.height - t, size.height - b]
      const inPicture = item.label === "text" && item.parent?.$ref.startsWith("#/pictures/") === true
      return { label: item.label, text: item.text, inPicture, box: [l / size.width, top / size.height, r / size.width, bottom / size.height] as const }
    }))
    // Words Docling read inside a picture are no body text for the markdown measure (as in LayoutData.ts).
    const textItems = items.filter((i) => !i.inPicture)
    const cells = (json.tables ?? []).filter((t) => t.prov[0]?.page_no === index + 1).flatMap((t) => t.data.table_cells.map((c) => c.text))
    const theirs = cut === undefined ? theirsWhole[index] : (await inspectorPages(cut, `${name} p${index + 1}`))[0]
    scoreDoclingPage(md.strata, `${name} p${index + 1}`, strataMarkdown(page), textItems, cells)
    scoreDoclingPage(md["pdf-inspector"], `${name} p${index + 1}`, theirs ?? "", textItems, cells)
    for (const item of items) {
      const text = norm(item.text)
      if (text.length === 0) continue
      const box: Box = item.box
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

const docbank = async (txtName: string, into: BankCounts, md: Record<Engine, BankMarkdownCounts>) => {
  const m = /^(.*)_(\d+)\.txt$/.exec(txtName)
  if (m === null) return
  const source = await PDFDocument.load(readFileSync(`${docbankDir}${m[1]}_black.pdf`), { ignoreEncryption: true })
  const cut = await cutPage(source, Number(m[2]))
  const page = await readPage(cut)
  if (page === undefined) return
  into.pages++
  const ours = oursOf(page)
  const lines = docbankLines(readFileSync(docbankDir + txtName, "utf8"))
  scoreBankPage(md.strata, txtName, strataMarkdown(page), lines)
  scoreBankPage(md["pdf-inspector"], txtName, (await inspectorPages(cut, txtName))[0] ?? "", lines)
  for (const line of lines) {
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
const engines = ["strata", "pdf-inspector"] as const
const perEngine = <T>(make: () => T) => ({ strata: make(), "pdf-inspector": make() })
const markdownSummary = (c: MarkdownCounts) => ({ pages: c.pages, furniture: c.furniture, leaked: c.leaked, marginBody: c.marginBody, marginLost: c.marginLost, body: c.body, lost: c.lost })
for (const half of ["even", "odd"] as const) {
  const d = counts()
  const dm = perEngine(markdownCounts)
  for (const f of doclingFiles[half]) await docling(f, d, dm)
  const k: BankCounts = { lines: 0, dropped: {}, pages: 0, details: [] }
  const km = perEngine(bankMarkdownCounts)
  for (const f of docbankFiles[half]) await docbank(f, k, km)
  const w = counts()
  const wm = perEngine(markdownCounts)
  for (const f of doclingFiles[half]) await docling(f, w, wm, true)
  if (show === half) {
    for (const line of [...d.details, ...k.details, ...w.details.map((x) => `whole: ${x}`)]) console.error(line)
    for (const e of engines) for (const line of [...dm[e].details, ...km[e].details, ...wm[e].details.map((x) => `whole: ${x}`)]) console.error(`markdown ${e}: ${line}`)
  }
  report[half] = {
    docling: { documents: doclingFiles[half].length, pages: d.pages, furniture: d.furniture, leaked: d.leaked, body: d.body, dropped: d.dropped },
    doclingWhole: { pages: w.pages, furniture: w.furniture, leaked: w.leaked, body: w.body, dropped: w.dropped },
    docbank: { pages: k.pages, lines: k.lines, dropped: k.dropped, droppedParagraphLines: k.details.filter((x) => / dropped paragraph: /.test(x)).map((x) => x.replace(/^.*dropped paragraph: /, "")) },
    markdown: Object.fromEntries(engines.map((e) => [e, {
      docling: markdownSummary(dm[e]), doclingWhole: markdownSummary(wm[e]),
      docbank: { pages: km[e].pages, marginLines: km[e].marginLines, lost: km[e].lost }
    }]))
  }
}
inspector.close()
report.inspectorFailures = inspector.failures
report.seconds = Math.round((performance.now() - started) / 100) / 10
process.stdout.write(JSON.stringify(report) + "\n")
