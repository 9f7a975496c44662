/** Precision, recall and F1 of two bags of tokens (words, table cells, headings): the scores every bench shares. */

export interface MultisetScore {
  readonly precision: number
  readonly recall: number
  readonly f1: number
}

/** Bag overlap of `candidate` against `reference`; both empty is a perfect score, one empty is zero. */
export const multisetScore = (candidate: ReadonlyArray<string>, reference: ReadonlyArray<string>): MultisetScore => {
  if (candidate.length === 0 && reference.length === 0) return { precision: 1, recall: 1, f1: 1 }
  if (candidate.length === 0 || reference.length === 0) return { precision: 0, recall: 0, f1: 0 }
  const counts = new Map<string, number>()
  for (const token of reference) counts.set(token, (counts.get(token) ?? 0) + 1)
  let overlap = 0
  for (const token of candidate) {
    const left = counts.get(token) ?? 0
    if (left > 0) {
      overlap++
      counts.set(token, left - 1)
    }
  }
  const precision = overlap / candidate.length
  const recall = overlap / reference.length
  const f1 = precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0
  return { precision, recall, f1 }
}
