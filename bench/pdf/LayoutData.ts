/**
 * Labelled layout pages for the layout bench (and for training a layout model): each PDF read
 * whole through our reader and heuristic Layout layer (`pdfReader`, mode fast, as a parse
 * reads it, so repetition across pages counts), paired with its labelled regions.
 *
 * - Generated: models/layout/data's documents, `<seed>.pdf` with `<seed>.json` (exact labels
 *   from the DOM). Missing seeds are generated first.
 * - Generated from LaTeX: models/layout/data's LaTeX documents (`generateLatex.ts`, pdflatex;
 *   exact labels from the source's colours and TeX's boxes), the same files under
 *   `.tmp/layout-latex`. A seed pdflatex could not build is skipped.
 * - Docling: ../shared/corpus/docling/pdf, regions from Docling's JSON (a peer's layout model,
 *   not truth). Its labels are folded onto ours: picture -> figure, document_index -> table,
 *   checkbox_selected/unselected -> text; text items inside a picture (words of a chart) are not
 *   regions of their own and are left out.
 * - DocBank: ../shared/corpus/docbank, 30 arXiv pages with token labels derived from their LaTeX
 *   (weak, not human-reviewed). Tokens have no blocks, so each of our blocks on the page becomes a
 *   region with our block's box and the label most of its tokens' characters carry (a block with
 *   no token is no region); the score is then a block-label score, IoU is 1 by construction.
 *   Folded onto ours: paragraph, abstract, author, reference -> text; section -> section_header;
 *   list -> list_item; equation -> formula; footer (footnotes in these papers) -> footnote.
 *   Running heads and page numbers are `paragraph` in DocBank: blocks in the top or bottom 6% of
 *   the page whose tokens are all paragraph are no region.
 */
import { execFileSync } from "node:child_process"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { Effect, Stream } from "effect"
import type { Block, Page } from "@strata/core"
import { heuristicLayout, heuristicReadingOrder, heuristicTables, pdfReaderWith } from "../../packages/pdf/src/index.ts"
import { capturingLayout, type PageSnapshot } from "../../models/layout/Features.ts"
import { type Box, foldLabel, type Region } from "./LayoutMetric.ts"

export interface LabelledPage {
  readonly page: Page
  /** Our blocks that have a box, in reading order, with their kinds folded (LayoutMetric.foldLabel). */
  readonly blocks: ReadonlyArray<{ readonly block: Block; readonly region: Region }>
  readonly truth: ReadonlyArray<Region>
  /** The page as the Layout layer labelled it, before reading order (models/layout/Features.ts). */
  readonly snapshot: PageSnapshot | undefined
}

export interface LabelledDocument {
  readonly doc: string
  readonly pages: ReadonlyArray<LabelledPage>
  /** Every page the Layout layer labelled, in order: a model's rows are made per document. */
  readonly snapshots: ReadonlyArray<PageSnapshot>
}

export const generatedDir = fileURLToPath(new URL("../../.tmp/layout/", import.meta.url))
export const latexDir = fileURLToPath(new URL("../../.tmp/layout-latex/", import.meta.url))
const doclingDir = fileURLToPath(new URL("../../../shared/corpus/docling/pdf/", import.meta.url))
const docbankDir = fileURLToPath(new URL("../../../shared/corpus/docbank/", import.meta.url))

/** Reads `bytes` with the heuristic stages, keeping a copy of each page the Layout layer labels. */
export const readPdf = async (bytes: Uint8Array): Promise<{ pages: ReadonlyArray<Page>; snapshots: ReadonlyArray<PageSnapshot> }> => {
  const captured = new Map<number, PageSnapshot>()
  const reader = pdfReaderWith({ layout: capturingLayout(heuristicLayout(heuristicTables), captured), readingOrder: heuristicReadingOrder })
  const pages = await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const result = yield* reader.read({ bytes, format: "pdf", options: { mode: "fast", deadline: Date.now() + 120_000 } })
    return yield* Stream.runCollect(result.pages)
  })))
  return { pages, snapshots: [...captured.values()].sort((a, b) => a.pageNumber - b.pageNumber) }
}

const oursOf = (page: Page) =>
  page.blocks.filter((b) => b.bbox !== null).map((block) => {
    const box = block.bbox as unknown as Box
    return { block, region: { label: foldLabel(block.kind, box), box } }
  })

/** The generator of each source in models/layout/data. */
export type Source = "html" | "latex"
const GENERATOR: Record<Source, string> = { html: "generate.ts", latex: "generateLatex.ts" }

/** Generates what is missing of seeds `from..to` into `dir` (models/layout/data/generate.ts or generateLatex.ts). */
export const ensureGenerated = (from: number, to: number, dir = generatedDir, source: Source = "html") => {
  const missing = Array.from({ length: to - from + 1 }, (_, i) => from + i).some((s) => !existsSync(`${dir}${s}.json`))
  if (!missing) return
  execFileSync(process.execPath, [fileURLToPath(new URL(`../../models/layout/data/${GENERATOR[source]}`, import.meta.url)), "--from", String(from), "--to", String(to), "--out", dir], { stdio: "inherit" })
}

interface GeneratedJson {
  readonly width: number
  readonly height: number
  readonly pages: ReadonlyArray<{ page: number; regions: ReadonlyArray<{ label: string; box: Box }> }>
}

export async function* generatedDocuments(from: number, to: number, dir = generatedDir, source: Source = "html"): AsyncGenerator<LabelledDocument> {
  ensureGenerated(from, to, dir, source)
  for (let seed = from; seed <= to; seed++) {
    if (!existsSync(`${dir}${seed}.json`)) continue
    const json = JSON.parse(readFileSync(`${dir}${seed}.json`, "utf8")) as GeneratedJson
    const { pages, snapshots } = await readPdf(new Uint8Array(readFileSync(`${dir}${seed}.pdf`)))
    const labelledPages: Array<LabelledPage> = []
    for (const page of pages) {
      const labelled = json.pages[page.pageNumber - 1]
      if (labelled === undefined) continue
      const truth = labelled.regions.map((r) => {
        const box: Box = [r.box[0] / json.width, r.box[1] / json.height, r.box[2] / json.width, r.box[3] / json.height]
        return { label: foldLabel(r.label, box), box }
      })
      labelledPages.push({ page, blocks: oursOf(page), truth, snapshot: snapshots.find((s) => s.pageNumber === page.pageNumber) })
    }
    yield { doc: String(seed), pages: labelledPages, snapshots }
  }
}

/** The LaTeX documents of seeds `from..to` (`.tmp/layout-latex`, generated when missing). */
export const latexDocuments = (from: number, to: number): AsyncGenerator<LabelledDocument> => generatedDocuments(from, to, latexDir, "latex")

interface DoclingJson {
  readonly pages: Record<string, { size: { width: number; height: number } }>
  readonly texts: ReadonlyArray<DoclingItem>
  readonly tables: ReadonlyArray<DoclingItem>
  readonly pictures: ReadonlyArray<DoclingItem>
}
interface DoclingItem {
  readonly label: string
  readonly parent?: { $ref: string }
  readonly prov: ReadonlyArray<{ page_no: number; bbox: { l: number; t: number; r: number; b: number; coord_origin?: string } }>
}

const DOCLING: Record<string, string> = {
  picture: "figure", document_index: "table", checkbox_selected: "text", checkbox_unselected: "text", paragraph: "text", reference: "text"
}

export const doclingFiles = (): Array<string> => readdirSync(doclingDir).filter((f) => f.endsWith(".pdf")).sort()

export async function* doclingDocuments(): AsyncGenerator<LabelledDocument> {
  for (const name of doclingFiles()) {
    const json = JSON.parse(readFileSync(`${doclingDir}${name}.json`, "utf8")) as DoclingJson
    const { pages, snapshots } = await readPdf(new Uint8Array(readFileSync(doclingDir + name)))
    const labelledPages: Array<LabelledPage> = []
    const items = [...json.texts, ...json.tables, ...json.pictures]
      .filter((item) => !(item.label === "text" && item.parent?.$ref.startsWith("#/pictures/")))
    for (const page of pages) {
      const size = json.pages[String(page.pageNumber)]?.size
      if (size === undefined) continue
      const truth: Array<Region> = []
      for (const item of items) {
        for (const prov of item.prov) {
          if (prov.page_no !== page.pageNumber) continue
          const { l, t, r, b, coord_origin } = prov.bbox
          const [top, bottom] = coord_origin === "TOPLEFT" ? [t, b] : [size.height - t, size.height - b]
          const box: Box = [l / size.width, top / size.height, r / size.width, bottom / size.height]
          truth.push({ label: foldLabel(DOCLING[item.label] ?? item.label, box), box })
        }
      }
      labelledPages.push({ page, blocks: oursOf(page), truth, snapshot: snapshots.find((s) => s.pageNumber === page.pageNumber) })
    }
    yield { doc: name, pages: labelledPages, snapshots }
  }
}

const DOCBANK: Record<string, string> = {
  paragraph: "text", abstract: "text", author: "text", reference: "text", date: "text", section: "section_header",
  list: "list_item", equation: "formula", footer: "footnote", title: "title", table: "table", figure: "figure", caption: "caption"
}

/** DocBank's pages (`<paper>_<page index from 0>.txt`), sorted by name. */
export const docbankFiles = (): Array<string> => readdirSync(docbankDir).filter((f) => f.endsWith(".txt")).sort()

/** One labelled page per DocBank file in `files`; the PDF is read whole (windows and body size as a parse sees them). */
export async function* docbankDocuments(files: ReadonlyArray<string> = docbankFiles()): AsyncGenerator<LabelledDocument> {
  for (const name of files) {
    const match = /^(.*)_(\d+)\.txt$/.exec(name)
    if (match === null) continue
    const pageNumber = Number(match[2]) + 1
    const tokens = readFileSync(docbankDir + name, "utf8").split("\n").flatMap((line) => {
      const f = line.split("\t")
      if (f.length < 10) return []
      const [x0, y0, x1, y1] = [1, 2, 3, 4].map((i) => Number(f[i]) / 1000)
      return [{ cx: (x0 + x1) / 2, cy: (y0 + y1) / 2, chars: Math.max(1, f[0].length), label: f[9].trim() }]
    })
    const { pages, snapshots } = await readPdf(new Uint8Array(readFileSync(`${docbankDir}${match[1]}_black.pdf`)))
    const page = pages.find((p) => p.pageNumber === pageNumber)
    if (page === undefined) continue
    const blocks = oursOf(page)
    const truth: Array<Region> = []
    for (const { region } of blocks) {
      const [x0, top, x1, bottom] = region.box
      const votes = new Map<string, number>()
      for (const t of tokens) if (t.cx >= x0 && t.cx <= x1 && t.cy >= top && t.cy <= bottom) votes.set(t.label, (votes.get(t.label) ?? 0) + t.chars)
      if (votes.size === 0) continue
      if (votes.size === 1 && votes.has("paragraph") && (bottom < 0.06 || top > 0.94)) continue
      const label = [...votes].sort((a, b) => b[1] - a[1])[0][0]
      truth.push({ label: DOCBANK[label] ?? "text", box: region.box })
    }
    const snapshot = snapshots.find((s) => s.pageNumber === pageNumber)
    yield { doc: name, pages: [{ page, blocks, truth, snapshot }], snapshots: snapshot === undefined ? [] : [snapshot] }
  }
}

/** The box key the reader writes (PageLayout.normalisedBox): our blocks are found among the Layout layer's by it. */
const boxKey = (box: ReadonlyArray<number>) => box.map((v) => Math.round(Math.min(1, Math.max(0, v)) * 10000)).join()

/**
 * Our blocks of `doc`, page by page, with the labels `labels` gives the Layout layer's blocks (per
 * snapshot, per block): each block is found among the snapshots by its box; one not found keeps
 * its kind. `counts` tallies blocks and those found.
 */
export const relabelled = (doc: LabelledDocument, labels: ReadonlyArray<ReadonlyArray<string>>, counts = { mapped: 0, blocks: 0 }): Array<Array<Region>> => {
  const byBox = new Map<string, string>()
  doc.snapshots.forEach((s, p) => s.blocks.forEach((b, i) => byBox.set(`${s.pageNumber}:${boxKey([b.x0 / s.width, b.top / s.height, b.x1 / s.width, b.bottom / s.height])}`, labels[p][i])))
  return doc.pages.map((page) => page.blocks.map(({ region }): Region => {
    counts.blocks++
    const label = byBox.get(`${page.page.pageNumber}:${boxKey(region.box)}`)
    if (label === undefined) return region
    counts.mapped++
    return { label: foldLabel(label, region.box), box: region.box }
  }))
}
