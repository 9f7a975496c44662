/**
 * Table-cell neighbour accuracy against the tables of Docling's JSON (a peer's table model, not
 * truth). Each table gives adjacency pairs: a cell and the nearest non-empty cell to its right
 * (from the slot after its last column, on its first row) and below it (from the slot under its
 * last row, in its first column), spans included, so a header that spans its columns pairs with the
 * first sub-header under it. Pairs are text pairs (letters and digits only, lower-cased), pooled
 * per page; precision, recall and F1 over the multisets.
 *
 * Side by side (`markdown`): the same pairs taken from the tables of each engine's markdown of
 * the page (MarkdownGrids.ts), ours (MarkdownWriter) and pdf-inspector's (its per-page markdown,
 * in a child process), so both are scored by one piece of code. pdf-inspector writes only pipe
 * tables: a merged cell is an empty slot there, which the pairs skip. Prints one JSON line.
 *
 *   node -C @strata/source bench/pdf/TableNeighbours.ts
 */
import { readdirSync, readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { Effect, Stream } from "effect"
import { MarkdownWriter } from "@strata/core"
import { pdfReader } from "../../packages/pdf/src/index.ts"
import { multisetScore } from "../lib/MultisetF1.ts"
import { Inspector } from "./Inspector.ts"
import { markdownGrids } from "./MarkdownGrids.ts"
import { type Grid, neighbourPairs } from "./TablePairs.ts"

const dir = fileURLToPath(new URL("../../../shared/corpus/docling/pdf/", import.meta.url))

interface DoclingTable {
  readonly prov: ReadonlyArray<{ page_no: number }>
  readonly data: {
    readonly num_rows: number
    readonly num_cols: number
    readonly table_cells: ReadonlyArray<{ start_row_offset_idx: number; end_row_offset_idx: number; start_col_offset_idx: number; end_col_offset_idx: number; text: string }>
  }
}

const referenceGrid = (table: DoclingTable): Grid => ({
  rows: table.data.num_rows,
  cols: table.data.num_cols,
  cells: table.data.table_cells.map((c) => ({
    row: c.start_row_offset_idx, col: c.start_col_offset_idx,
    rowSpan: c.end_row_offset_idx - c.start_row_offset_idx, colSpan: c.end_col_offset_idx - c.start_col_offset_idx, text: c.text
  }))
})

const files = readdirSync(dir).filter((f) => f.endsWith(".pdf")).sort()

interface Tally { reference: number; ours: number; matched: number }
type PerFile = Record<string, Tally>
/** Adds one page's pairs to the file's tally; pages with pairs on neither side are left out. */
const add = (file: Tally, mine: ReadonlyArray<string>, theirs: ReadonlyArray<string>) => {
  if (theirs.length === 0 && mine.length === 0) return
  const score = multisetScore(mine, theirs)
  file.reference += theirs.length
  file.ours += mine.length
  file.matched += Math.round(score.recall * theirs.length)
}
const round = (n: number) => Math.round(n * 1000) / 1000
const summary = (perFile: PerFile) => {
  const matched = Object.values(perFile).reduce((n, f) => n + f.matched, 0)
  const oursN = Object.values(perFile).reduce((n, f) => n + f.ours, 0)
  const refN = Object.values(perFile).reduce((n, f) => n + f.reference, 0)
  const precision = oursN > 0 ? matched / oursN : 0
  const recall = refN > 0 ? matched / refN : 0
  return {
    reference: refN, ours: oursN, matched,
    precision: round(precision), recall: round(recall), f1: round(precision + recall > 0 ? 2 * precision * recall / (precision + recall) : 0),
    perFile
  }
}
const markdownPairs = (markdown: string) => markdownGrids(markdown).flatMap(neighbourPairs)

const inspector = new Inspector()
const perFile: PerFile = {}
const fromMarkdown: Record<"strata" | "pdf-inspector", PerFile> = { strata: {}, "pdf-inspector": {} }
for (const name of files) {
  const json = JSON.parse(readFileSync(`${dir}${name}.json`, "utf8")) as { tables?: ReadonlyArray<DoclingTable> }
  const tables = json.tables ?? []
  if (tables.length === 0) continue
  const bytes = new Uint8Array(readFileSync(dir + name))
  const pages = await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const result = yield* pdfReader.read({ bytes, format: "pdf", options: { mode: "fast", deadline: Date.now() + 60_000 } })
    return yield* Stream.runCollect(result.pages)
  })))
  const theirsOf = (pageNumber: number) => tables.filter((t) => t.prov[0]?.page_no === pageNumber).flatMap((t) => neighbourPairs(referenceGrid(t)))
  const file = { reference: 0, ours: 0, matched: 0 }
  const writer = new MarkdownWriter()
  const strataMd = { reference: 0, ours: 0, matched: 0 }
  for (const page of pages) {
    const mine = page.blocks.flatMap((b) => (b.table !== undefined ? neighbourPairs({ ...b.table, cells: b.table.cells.map((c) => ({ ...c, rowSpan: c.rowSpan ?? 1, colSpan: c.colSpan ?? 1 })) }) : []))
    const theirs = theirsOf(page.pageNumber)
    add(file, mine, theirs)
    add(strataMd, markdownPairs(writer.push(page).page.markdown), theirs)
  }
  perFile[name] = file
  fromMarkdown.strata[name] = strataMd
  const other = await inspector.pages(bytes, name)
  const inspectorMd = { reference: 0, ours: 0, matched: 0 }
  // A page pdf-inspector failed on scores as a page without tables.
  const otherPages = "pages" in other ? other.pages : []
  for (let n = 1; n <= Math.max(pages.length, otherPages.length); n++) add(inspectorMd, markdownPairs(otherPages[n - 1] ?? ""), theirsOf(n))
  fromMarkdown["pdf-inspector"][name] = inspectorMd
}
inspector.close()
process.stdout.write(JSON.stringify({
  ...summary(perFile),
  markdown: { strata: summary(fromMarkdown.strata), "pdf-inspector": { ...summary(fromMarkdown["pdf-inspector"]), failures: inspector.failures } }
}) + "\n")
