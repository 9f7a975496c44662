/**
 * The offline text formats, from the page's sentences alone: `summary` (the most central
 * sentences: cosine to the page's TF-IDF centroid, then redundancy dropped), `highlights` (the
 * sentences that rank highest for the query) and `answer` (BM25 over passages of neighbouring
 * sentences, then the best sentence, then a span of it that fits the question's type). No model,
 * deterministic, linear in the page.
 */
import { answerSpan } from "./AnswerSpan.ts"
import { pageSentences, type Sentence, terms } from "./Sentences.ts"

type Vector = Map<string, number>

const counts = (items: ReadonlyArray<string>): Vector => {
  const out: Vector = new Map()
  for (const item of items) out.set(item, (out.get(item) ?? 0) + 1)
  return out
}

const documentFrequency = (sentences: ReadonlyArray<Sentence>): Vector => {
  const df: Vector = new Map()
  for (const sentence of sentences) for (const term of new Set(sentence.terms)) df.set(term, (df.get(term) ?? 0) + 1)
  return df
}

const cosine = (a: Vector, b: Vector, normA: number, normB: number): number => {
  if (normA === 0 || normB === 0) return 0
  let dot = 0
  const [small, large] = a.size < b.size ? [a, b] : [b, a]
  for (const [term, weight] of small) dot += weight * (large.get(term) ?? 0)
  return dot / (normA * normB)
}

const norm = (v: Vector): number => {
  let sum = 0
  for (const weight of v.values()) sum += weight * weight
  return Math.sqrt(sum)
}

/** Sentences fit to summarise: prose of a useful length, not headings or table rows. */
const summarisable = (sentence: Sentence): boolean => {
  if (sentence.isHeading || sentence.isTableRow) return false
  const length = sentence.text.split(" ").length
  return length >= 6 && length <= 60 && /[.!?]["'”’)]?$/.test(sentence.text)
}

export interface SummaryOptions {
  /** At most this many sentences (default 5). */
  readonly maxSentences?: number
  /** Stop adding sentences past this many words (default 120). */
  readonly maxWords?: number
}

/**
 * An extractive summary: the sentences closest to the page's centroid (TF-IDF), with a small
 * bonus for coming early (pages put their point first), skipping any sentence too like one
 * already taken; given back in page order. `undefined` when the page has no prose.
 */
export const extractiveSummary = (markdown: string, options: SummaryOptions = {}): string | undefined => {
  const all = pageSentences(markdown)
  let candidates = all.filter(summarisable)
  if (candidates.length === 0) candidates = all.filter((s) => !s.isHeading && s.terms.length >= 3)
  if (candidates.length === 0) return undefined
  const df = documentFrequency(candidates)
  const n = candidates.length
  const vectors = candidates.map((sentence) => {
    const v: Vector = new Map()
    for (const [term, tf] of counts(sentence.terms)) v.set(term, (1 + Math.log(tf)) * Math.log(1 + n / (df.get(term) ?? 1)))
    return v
  })
  const centroid: Vector = new Map()
  for (const v of vectors) for (const [term, weight] of v) centroid.set(term, (centroid.get(term) ?? 0) + weight)
  // Terms in one sentence only say nothing about the page as a whole.
  for (const [term] of centroid) if ((df.get(term) ?? 0) < 2 && n > 4) centroid.delete(term)
  const centroidNorm = norm(centroid)
  const norms = vectors.map(norm)
  const scored = candidates.map((sentence, i) => ({
    i,
    sentence,
    score: cosine(vectors[i]!, centroid, norms[i]!, centroidNorm) + 0.15 / (1 + i / 3)
  })).sort((a, b) => b.score - a.score || a.i - b.i)
  const maxSentences = options.maxSentences ?? 5
  const maxWords = options.maxWords ?? 120
  const chosen: Array<(typeof scored)[number]> = []
  let wordCount = 0
  for (const candidate of scored) {
    if (chosen.length >= maxSentences || wordCount >= maxWords) break
    if (chosen.some((c) => cosine(vectors[c.i]!, vectors[candidate.i]!, norms[c.i]!, norms[candidate.i]!) > 0.6)) continue
    const length = candidate.sentence.text.split(" ").length
    if (chosen.length > 0 && wordCount + length > maxWords * 1.25) continue
    chosen.push(candidate)
    wordCount += length
  }
  return chosen.sort((a, b) => a.sentence.index - b.sentence.index).map((c) => c.sentence.text).join(" ")
}

/** BM25 over a set of term lists, scored for one query. */
const bm25 = (docs: ReadonlyArray<ReadonlyArray<string>>, query: ReadonlyArray<string>, k1 = 1.2, b = 0.75): Array<number> => {
  const n = docs.length
  if (n === 0) return []
  const avg = docs.reduce((sum, d) => sum + d.length, 0) / n || 1
  const df = new Map<string, number>()
  for (const doc of docs) for (const term of new Set(doc)) df.set(term, (df.get(term) ?? 0) + 1)
  const unique = [...new Set(query)]
  return docs.map((doc) => {
    const tf = counts(doc)
    let score = 0
    for (const term of unique) {
      const f = tf.get(term)
      if (f === undefined) continue
      const idf = Math.log(1 + (n - (df.get(term) ?? 0) + 0.5) / ((df.get(term) ?? 0) + 0.5))
      score += idf * (f * (k1 + 1)) / (f + k1 * (1 - b + b * doc.length / avg))
    }
    return score
  })
}

/** Words of a question that say what is asked, not what about: they are not matched in the page. */
const QUESTION_WORDS = new Set(["many", "much", "year", "name", "call", "kind", "type", "long", "old", "big", "large", "number", "date"])

export interface RankedSentence {
  readonly sentence: Sentence
  readonly score: number
  /** Share of the query's distinct terms found in the sentence, its heading or its neighbours. */
  readonly coverage: number
}

/**
 * The page's sentences ranked for a query: a sentence's own BM25, plus that of the passage it sits
 * in (itself and its two neighbours, with the heading above), so context counts but the sentence
 * that holds the terms wins.
 */
export const rankSentences = (
  markdown: string,
  query: string,
  sentences: ReadonlyArray<Sentence> = pageSentences(markdown)
): { readonly ranked: Array<RankedSentence>; readonly queryTerms: ReadonlyArray<string> } => {
  const queryTerms = [...new Set(terms(query).filter((t) => !QUESTION_WORDS.has(t)))]
  if (sentences.length === 0 || queryTerms.length === 0) return { ranked: [], queryTerms }
  const own = bm25(sentences.map((s) => s.terms), queryTerms)
  // Two neighbours each side: spec sheets put a label, its value and the item they belong to on separate lines.
  const passages = sentences.map((s, i) => [
    ...(sentences[i - 2]?.terms ?? []),
    ...(sentences[i - 1]?.terms ?? []),
    ...s.terms,
    ...(sentences[i + 1]?.terms ?? []),
    ...(sentences[i + 2]?.terms ?? []),
    ...s.heading
  ])
  const context = bm25(passages, queryTerms)
  const ranked = sentences.map((sentence, i) => {
    const seen = new Set(passages[i])
    const coverage = queryTerms.filter((t) => seen.has(t)).length / queryTerms.length
    return { sentence, score: own[i]! + 0.5 * context[i]!, coverage }
  })
  ranked.sort((a, b) => b.score - a.score || a.sentence.index - b.sentence.index)
  return { ranked, queryTerms }
}

/** A match this weak is noise: fewer than a third of the query's terms, or none in the sentence itself. */
const relevant = (r: RankedSentence, queryTerms: ReadonlyArray<string>) =>
  r.score > 0 && r.coverage >= (queryTerms.length <= 2 ? 0.5 : 0.34) && r.sentence.terms.some((t) => queryTerms.includes(t))

/**
 * The sentences that rank highest for the query, verbatim and in page order: the best, and up to
 * `max - 1` more scoring at least half as well. `undefined` when nothing on the page matches.
 */
export const extractiveHighlights = (markdown: string, query: string, max = 3): string | undefined => {
  const { ranked, queryTerms } = rankSentences(markdown, query)
  const best = ranked[0]
  if (best === undefined || !relevant(best, queryTerms)) return undefined
  const chosen = ranked.filter((r) => !r.sentence.isHeading && relevant(r, queryTerms) && r.score >= best.score * 0.5).slice(0, max)
  if (chosen.length === 0) return undefined
  return chosen.sort((a, b) => a.sentence.index - b.sentence.index).map((r) => r.sentence.text).join("\n\n")
}

export interface ExtractiveAnswer {
  /** The answer: a span of the best sentence that fits the question's type, else the sentence. */
  readonly answer: string
  /** The sentence the answer came from. */
  readonly sentence: string
}

/**
 * An extractive answer: the best-ranked sentence that holds a span of the type the question asks
 * for (a date for "when", a number for "how many", a name for "who"), else the best sentence.
 * `undefined` when nothing on the page matches the question.
 */
export const extractiveAnswer = (markdown: string, question: string): ExtractiveAnswer | undefined => {
  const sentences = pageSentences(markdown)
  const { ranked, queryTerms } = rankSentences(markdown, question, sentences)
  const best = ranked[0]
  if (best === undefined || !relevant(best, queryTerms)) return undefined
  // Beyond the relevant ones, a few more that share a term: a typed span ("60 minutes") there beats no span.
  const candidates = ranked.filter((r, i) =>
    (relevant(r, queryTerms) && r.score >= best.score * 0.6) ||
    (i < 8 && r.score >= best.score * 0.4 && r.sentence.terms.some((t) => queryTerms.includes(t)))
  ).slice(0, 8)
  for (const candidate of candidates) {
    // A label on its own line ("Max Resolution"), its value on the next ("7680 x 4320").
    const next = sentences[candidate.sentence.index + 1]
    if (isLabel(candidate.sentence, queryTerms) && next !== undefined && next.text.split(" ").length <= 12 && !/:$/.test(next.text)) {
      return { answer: answerSpan(question, next.text) ?? next.text, sentence: `${candidate.sentence.text} ${next.text}` }
    }
    // A question in the page (an FAQ's heading) is not its answer.
    if (candidate.sentence.isHeading || candidate.sentence.text.endsWith("?")) continue
    const span = answerSpan(question, candidate.sentence.text)
    if (span !== undefined) return { answer: span, sentence: candidate.sentence.text }
  }
  const top = candidates.find((c) => !c.sentence.isHeading && !c.sentence.text.endsWith("?")) ?? best
  return { answer: top.sentence.text, sentence: top.sentence.text }
}

/** A short line made only of the question's words, with no value of its own. */
const isLabel = (sentence: Sentence, queryTerms: ReadonlyArray<string>) =>
  sentence.text.split(" ").length <= 5 && sentence.terms.length > 0 && !/[.!?]$/.test(sentence.text) &&
  sentence.terms.every((t) => queryTerms.includes(t))
