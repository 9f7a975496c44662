/**
 * Character and word error rates (edit distance over the reference length), with the light
 * normalisation OCR benchmarks use: whitespace collapsed, smart quotes and dashes folded.
 */

export const normalizeForScoring = (text: string): string =>
  text
    .normalize("NFKC")
    .replace(/[\u2018\u2019\u201a\u201b]/g, "'")
    .replace(/[\u201c\u201d\u201e]/g, "\"")
    .replace(/[\u2010-\u2015]/g, "-")
    .replace(/\s+/g, " ")
    .trim()

/** Levenshtein distance over two sequences, O(n*m) time and O(m) memory. */
export const editDistance = <T>(a: ReadonlyArray<T>, b: ReadonlyArray<T>): number => {
  if (a.length === 0) return b.length
  if (b.length === 0) return a.length
  let prev = new Int32Array(b.length + 1)
  let cur = new Int32Array(b.length + 1)
  for (let j = 0; j <= b.length; j++) prev[j] = j
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i
    const ai = a[i - 1]
    for (let j = 1; j <= b.length; j++) {
      const cost = ai === b[j - 1] ? 0 : 1
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
    }
    const t = prev
    prev = cur
    cur = t
  }
  return prev[b.length]
}

/** Character error rate of `hypothesis` against `reference`. */
export const characterErrorRate = (reference: string, hypothesis: string): number => {
  const r = [...normalizeForScoring(reference)]
  const h = [...normalizeForScoring(hypothesis)]
  return r.length === 0 ? (h.length === 0 ? 0 : 1) : editDistance(r, h) / r.length
}

/** Word error rate of `hypothesis` against `reference`. */
export const wordErrorRate = (reference: string, hypothesis: string): number => {
  const r = normalizeForScoring(reference).split(" ").filter((w) => w !== "")
  const h = normalizeForScoring(hypothesis).split(" ").filter((w) => w !== "")
  return r.length === 0 ? (h.length === 0 ? 0 : 1) : editDistance(r, h) / r.length
}
