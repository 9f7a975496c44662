/**
 * What the learned Layout layer does with the model's probabilities for the blocks of a page: the
 * model's label and probability are always recorded, its kind replaces the heuristic's only when
 * - the probability is at least the gate chosen at training (models/layout/train.ts), and
 * - the block has no structure the heuristic built (a table grid, a formula's LaTeX), which a new
 *   kind would throw away, and
 * - neither kind is `figure`: a picture has no text to write, and text called a picture is lost,
 * and, page by page (`decidePage`), where the page agrees:
 * - a block becomes a `table` only beside another table block on the same row (one the heuristic
 *   found, or one the model also calls a table): a table has columns, so a lone block the model
 *   calls a table is not a cell of one. On validation (generated seeds 300-359, DocBank's
 *   odd-numbered pages; models/layout/Constraints.ts) 5 of the 248 tables the model made on
 *   generated pages (cells the heuristic cut into blocks of their own) had no such neighbour
 *   (macro-F1 0.966 with or without the rule), and none of the 11 it made on DocBank's pages was
 *   right (equation numbers, headings, text beside a formula), all 11 alone on their row: DocBank
 *   macro-F1 0.772 -> 0.791.
 * The bench and training score the same functions, so their figures are the layer's.
 */

export interface Decision {
  /** The model's most probable label and its probability. */
  readonly label: string
  readonly confidence: number
  /** The kind kept: the model's at or above the gate, else the heuristic's. */
  readonly kind: string
}

const FURNITURE = new Set(["page_header", "page_footer"])

/** The kind a block labelled `heuristic` keeps, given the model's probabilities `p` over `classes`, before the page's constraints. */
export const decide = (classes: ReadonlyArray<string>, p: ArrayLike<number>, heuristic: string, gate: number, structured: boolean): Decision => {
  let best = 0
  for (let k = 1; k < p.length; k++) if (p[k] > p[best]) best = k
  const label = classes[best], confidence = p[best]
  const keep = confidence < gate || label === heuristic || structured || label === "figure" || heuristic === "figure" ||
    // The model has no page_number class: it reads page numbers as the header or footer they sit in.
    (heuristic === "page_number" && FURNITURE.has(label))
  return { label, confidence, kind: keep ? heuristic : label }
}

/** What `decidePage` needs of a block: the heuristic's kind, its vertical extent and whether the heuristic built structure for it. */
export interface DecisionBlock {
  readonly kind: string
  readonly top: number
  readonly bottom: number
  readonly structured: boolean
}

/**
 * The kinds the blocks of one page keep: `decide` for each block (its probabilities are
 * `probabilities(i)`), then a table the heuristic did not find is kept only where another block
 * on the page whose top and bottom overlap its own is a table too.
 */
export const decidePage = (classes: ReadonlyArray<string>, probabilities: (i: number) => ArrayLike<number>, blocks: ReadonlyArray<DecisionBlock>, gate: number): Array<Decision> => {
  const decided = blocks.map((b, i) => decide(classes, probabilities(i), b.kind, gate, b.structured))
  return decided.map((d, i) => {
    const b = blocks[i]
    if (d.kind !== "table" || b.kind === "table") return d
    const rowMate = decided.some((o, j) => j !== i && o.kind === "table" && Math.min(blocks[j].bottom, b.bottom) > Math.max(blocks[j].top, b.top))
    return rowMate ? d : { ...d, kind: b.kind }
  })
}
