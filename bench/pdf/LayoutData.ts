/**
 * Labelled layout pages for the layout bench (and for training a layout model): each PDF read
 * whole through our reader and heuristic Layout layer (`pdfReader`, mode fast, as a parse
 * reads it, so repetition across pages counts), paired with its labelled regions.
 *
 * - Generated: models/layout/data's documents, `<seed>.pdf` with `<seed>.json` (exact labels
 *   from the DOM). Missing seeds are generated first.
 * - Docling: ../shared/corpus/docling/pdf, regions from Docling's JSON (a peer's layout model,
 *   not truth). Its labels are folded onto ours: picture -> figure, document_index -> table,
 *   checkbox_selected/unselected -> text; text items inside a picture (words of a chart) are not
 *   regions of their own and are left out.
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
const doclingDir = fileURLToPath(new URL("../../../shared/corpus/docling/pdf/", import.meta.url))

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

/** Generates what is missing of seeds `from..to` into `dir` (models/layout/data/generate.ts). */
export const ensureGenerated = (from: number, to: number, dir = generatedDir) => {
  const missing = Array.from({ length: to - from + 1 }, (_, i) => from + i).some((s) => !existsSync(`${dir}${s}.json`))
  if (!missing) return
  execFileSync(process.execPath, [fileURLToPath(new URL("../../models/layout/data/generate.ts", import.meta.url)), "--from", String(from), "--to", String(to), "--out", dir], { stdio: "inherit" })
}

interface GeneratedJson {
  readonly width: number
  readonly height: number
  readonly pages: ReadonlyArray<{ page: number; regions: ReadonlyArray<{ label: string; box: Box }> }>
}

export async function* generatedDocuments(from: number, to: number, dir = generatedDir): AsyncGenerator<LabelledDocument> {
  ensureGenerated(from, to, dir)
  for (let seed = from; seed <= to; seed++) {
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
