/**
 * What the learned Layout layer does with the model's probabilities for one block: the model's
 * label and probability are always recorded, its kind replaces the heuristic's only when
 * - the probability is at least the gate chosen at training (models/layout/train.ts), and
 * - the block has no structure the heuristic built (a table grid, a formula's LaTeX), which a new
 *   kind would throw away, and
 * - neither kind is `figure`: a picture has no text to write, and text called a picture is lost.
 * The bench and training score the same function, so their figures are the layer's.
 */

export interface Decision {
  /** The model's most probable label and its probability. */
  readonly label: string
  readonly confidence: number
  /** The kind kept: the model's at or above the gate, else the heuristic's. */
  readonly kind: string
}

const FURNITURE = new Set(["page_header", "page_footer"])

/** The kind a block labelled `heuristic` keeps, given the model's probabilities `p` over `classes`. */
export const decide = (classes: ReadonlyArray<string>, p: ArrayLike<number>, heuristic: string, gate: number, structured: boolean): Decision => {
  let best = 0
  for (let k = 1; k < p.length; k++) if (p[k] > p[best]) best = k
  const label = classes[best], confidence = p[best]
  const keep = confidence < gate || label === heuristic || structured || label === "figure" || heuristic === "figure" ||
    // The model has no page_number class: it reads page numbers as the header or footer they sit in.
    (heuristic === "page_number" && FURNITURE.has(label))
  return { label, confidence, kind: keep ? heuristic : label }
}

