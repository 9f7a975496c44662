/**
 * Aggregation and the markdown table of the HTML benchmark: macro-averaged scores overall,
 * per page type and per half of the id-parity split (odd / even ids: tune on one, check on the
 * other), snippet rates, empty answers, and latency percentiles per engine.
 */

export interface PageResult {
  readonly id: string
  readonly pageType: string
  readonly precision: number
  readonly recall: number
  readonly f1: number
  readonly withRate: number
  readonly withoutRate: number
  readonly hasWithout: boolean
  readonly ms: number
  readonly bytes: number
  /** Words in the output, in the reference main content (WCXB's tokens) and on the whole page as we render it. */
  readonly words: number
  readonly truthWords: number
  readonly pageWords: number
}

export interface Scores {
  readonly n: number
  readonly f1: number
  readonly precision: number
  readonly recall: number
  readonly withRate: number
  /** share of `without` snippets that leaked (lower is better) */
  readonly withoutRate: number
}

export interface Summary {
  readonly overall: Scores
  readonly byType: Record<string, Scores>
  readonly ms: { readonly p50: number; readonly p95: number; readonly max: number; readonly mean: number }
  readonly pagesOver1s: number
  /**
   * Pages that show text (whole-page markdown has words) whose output has no word: where the
   * reference has text (accidents, target 0) and where it is empty too (app shells whose
   * visible text is all navigation); and near-empty: under a tenth of the reference's words.
   */
  readonly empty: number
  readonly emptyAgreed: number
  readonly nearEmpty: number
  readonly halves: { readonly odd: Scores; readonly even: Scores }
}

/** Output this much shorter than the reference (in words) counts as near-empty. */
const NEAR_EMPTY_SHARE = 0.1

const isEven = (id: string) => Number(id.replace(/\D/g, "")) % 2 === 0

const TYPES = ["article", "forum", "product", "collection", "listing", "documentation", "service"]

const mean = (xs: ReadonlyArray<number>) => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length)

const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]

const scores = (rows: ReadonlyArray<PageResult>): Scores => ({
  n: rows.length,
  f1: mean(rows.map((r) => r.f1)),
  precision: mean(rows.map((r) => r.precision)),
  recall: mean(rows.map((r) => r.recall)),
  withRate: mean(rows.map((r) => r.withRate)),
  withoutRate: mean(rows.map((r) => r.withoutRate))
})

export const summarise = (rows: ReadonlyArray<PageResult>): Summary => {
  const byType: Record<string, Scores> = {}
  for (const t of TYPES) {
    const sub = rows.filter((r) => r.pageType === t)
    if (sub.length > 0) byType[t] = scores(sub)
  }
  const ms = rows.map((r) => r.ms).sort((a, b) => a - b)
  return {
    overall: scores(rows),
    byType,
    ms: { p50: percentile(ms, 0.5), p95: percentile(ms, 0.95), max: ms[ms.length - 1] ?? 0, mean: mean(ms) },
    pagesOver1s: ms.filter((x) => x > 1000).length,
    empty: rows.filter((r) => r.pageWords > 0 && r.words === 0 && r.truthWords > 0).length,
    emptyAgreed: rows.filter((r) => r.pageWords > 0 && r.words === 0 && r.truthWords === 0).length,
    nearEmpty: rows.filter((r) => r.pageWords > 0 && r.words < r.truthWords * NEAR_EMPTY_SHARE).length,
    halves: { odd: scores(rows.filter((r) => !isEven(r.id))), even: scores(rows.filter((r) => isEven(r.id))) }
  }
}

const f = (x: number) => x.toFixed(3)
const pct = (x: number) => `${(x * 100).toFixed(1)}%`

export const renderMarkdown = (summary: Record<string, Summary>, conditions: object): string => {
  const names = Object.keys(summary)
  const lines: Array<string> = []
  lines.push("# HTML main-content benchmark (WCXB dev)", "", "```json", JSON.stringify(conditions), "```", "")
  lines.push(`| metric | ${names.join(" | ")} |`, `|---|${names.map(() => "---").join("|")}|`)
  const row = (label: string, get: (s: Summary) => string) => lines.push(`| ${label} | ${names.map((n) => get(summary[n])).join(" | ")} |`)
  row("F1", (s) => f(s.overall.f1))
  row("F1, odd ids", (s) => `${f(s.halves.odd.f1)} (n ${s.halves.odd.n})`)
  row("F1, even ids", (s) => `${f(s.halves.even.f1)} (n ${s.halves.even.n})`)
  row("precision", (s) => f(s.overall.precision))
  row("recall", (s) => f(s.overall.recall))
  row("`with` snippets found", (s) => pct(s.overall.withRate))
  row("`without` snippets leaked", (s) => pct(s.overall.withoutRate))
  row("ms p50", (s) => s.ms.p50.toFixed(1))
  row("ms p95", (s) => s.ms.p95.toFixed(1))
  row("ms max", (s) => s.ms.max.toFixed(1))
  row("pages over 1 s", (s) => String(s.pagesOver1s))
  row("empty outputs, page shows text, reference has text", (s) => String(s.empty))
  row("empty outputs, page shows text, reference empty too", (s) => String(s.emptyAgreed))
  row(`near-empty (page shows text; < ${NEAR_EMPTY_SHARE * 100}% of the reference's words)`, (s) => String(s.nearEmpty))
  lines.push("", "Per page type (F1 / P / R, with / without):", "")
  lines.push(`| type | n | ${names.join(" | ")} |`, `|---|---|${names.map(() => "---").join("|")}|`)
  for (const t of TYPES) {
    const first = summary[names[0]]?.byType[t]
    if (first === undefined) continue
    lines.push(
      `| ${t} | ${first.n} | ${names
        .map((n) => {
          const s = summary[n].byType[t]
          return s === undefined ? "" : `${f(s.f1)} / ${f(s.precision)} / ${f(s.recall)}, ${pct(s.withRate)} / ${pct(s.withoutRate)}`
        })
        .join(" | ")} |`
    )
  }
  return lines.join("\n") + "\n"
}
