/**
 * Cross-validation within the odd ids of WCXB dev (5 folds by page): trains the block model on
 * four folds, scores the fifth, and estimates each page's word F1 for the designs that use it,
 * from the picks' words (data.ts) without re-rendering:
 *   prune   drop the rule's pick's blocks under a threshold t;
 *   choose  where the page has an article/multi-block choice, take the pick whose expected F1
 *           (content words by the model against the words it keeps) beats the rule's by a margin m.
 * Reads the cache that `data.ts` pages make (see train.ts --dump); never reads even ids.
 *
 *   node -C @strata/source models/main-content/crossval.ts [--cache /tmp/mc-odd.json] [--rounds 100] [--depth 3]
 */
import { readFileSync } from "node:fs"
import { parseArgs } from "node:util"
import { multisetScore } from "../../bench/lib/MultisetF1.ts"
import { predict, trainTrees } from "../lib/BoostedTrees.ts"
import { type PageData, type PickRows, trainingRows } from "./data.ts"

const { values: args } = parseArgs({
  options: {
    cache: { type: "string", default: "/tmp/mc-odd.json" },
    rounds: { type: "string", default: "100" },
    depth: { type: "string", default: "3" },
    rate: { type: "string", default: "0.1" },
    minLeaf: { type: "string", default: "20" },
    folds: { type: "string", default: "5" }
  }
})

const without = (words: ReadonlyArray<string>, removed: ReadonlyArray<ReadonlyArray<string>>): Array<string> => {
  const counts = new Map<string, number>()
  for (const block of removed) for (const t of block) counts.set(t, (counts.get(t) ?? 0) + 1)
  const out: Array<string> = []
  for (const t of words) {
    const n = counts.get(t) ?? 0
    if (n > 0) counts.set(t, n - 1)
    else out.push(t)
  }
  return out
}

export const pruned = (pick: PickRows, probs: ReadonlyArray<number>, t: number): Array<string> =>
  without(pick.words, pick.blockWords.filter((_, i) => probs[i] < t))

/** Expected F1 of a pick from block probabilities: expected content words over kept words and the expected reference size. */
export const expectedF1 = (pick: PickRows, probs: ReadonlyArray<number>, reference: number): number => {
  let tp = 0
  pick.blockWords.forEach((b, i) => (tp += probs[i] * b.length))
  const size = pick.words.length
  return size + reference === 0 ? 0 : (2 * tp) / (size + reference)
}

const isMain = import.meta.url === `file://${process.argv[1]}`
if (isMain) {
  const pages: Array<PageData> = (JSON.parse(readFileSync(args.cache, "utf8")) as Array<PageData>).filter((p) => p.odd)
  const folds = Number(args.folds)
  const probs = new Map<PageData, Array<Array<number>>>()
  const started = performance.now()
  for (let k = 0; k < folds; k++) {
    const train = pages.filter((_, i) => i % folds !== k)
    const { X, y, w } = trainingRows(train)
    const model = trainTrees(X, y, w, { rounds: Number(args.rounds), depth: Number(args.depth), rate: Number(args.rate), minLeaf: Number(args.minLeaf) })
    pages.forEach((p, i) => {
      if (i % folds === k) probs.set(p, p.picks.map((pick) => pick.rows.map((r) => predict(model, r))))
    })
  }
  process.stderr.write(`${folds} folds in ${((performance.now() - started) / 1000).toFixed(0)} s\n`)
  // block accuracy and log loss on held-out folds
  let n = 0
  let right = 0
  for (const p of pages) p.picks.forEach((pick, j) => pick.labels.forEach((l, i) => {
    if (l === undefined || l === null) return
    n++
    if ((probs.get(p)![j][i] >= 0.5 ? 1 : 0) === l) right++
  }))
  const f1 = (words: ReadonlyArray<string>, p: PageData) => multisetScore(words, p.reference).f1
  const rulePick = (p: PageData) => p.picks.findIndex((k) => k.path === p.chosen || p.chosen === "other")
  const base = pages.reduce((s, p) => s + f1(p.picks[rulePick(p)].words, p), 0) / pages.length
  console.log(`blocks ${n}, held-out accuracy ${(right / n).toFixed(3)}; rule F1 (estimated from words) ${base.toFixed(4)}`)
  const oracle = pages.reduce((s, p) => s + Math.max(...p.picks.map((k) => f1(k.words, p))), 0) / pages.length
  console.log(`path oracle ${oracle.toFixed(4)}`)
  for (const t of [0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5]) {
    const mean = pages.reduce((s, p) => {
      const j = rulePick(p)
      return s + f1(pruned(p.picks[j], probs.get(p)![j], t), p)
    }, 0) / pages.length
    const onlyArticle = pages.reduce((s, p) => {
      const j = rulePick(p)
      return s + f1(p.picks[j].path === "article" ? pruned(p.picks[j], probs.get(p)![j], t) : p.picks[j].words, p)
    }, 0) / pages.length
    const outside = pages.reduce((s, p) => {
      const j = rulePick(p)
      const pr = probs.get(p)![j].map((v, i) => (p.picks[j].rows[i][19] === 0 ? 1 : v))
      return s + f1(pruned(p.picks[j], pr, t), p)
    }, 0) / pages.length
    const onlyBlocks = pages.reduce((s, p) => {
      const j = rulePick(p)
      return s + f1(p.picks[j].path !== "article" ? pruned(p.picks[j], probs.get(p)![j], t) : p.picks[j].words, p)
    }, 0) / pages.length
    console.log(`prune t=${t}: ${mean.toFixed(4)} (article picks only: ${onlyArticle.toFixed(4)}; other picks only: ${onlyBlocks.toFixed(4)}; outside the prose span only: ${outside.toFixed(4)})`)
  }
  for (const m of [0, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3]) {
    let changed = 0
    const mean = pages.reduce((s, p) => {
      const j = rulePick(p)
      if (p.picks.length < 2) return s + f1(p.picks[j].words, p)
      const pr = probs.get(p)!
      const refs = p.picks.map((k, i) => k.blockWords.reduce((a, b, q) => a + pr[i][q] * b.length, 0))
      const reference = Math.max(...refs)
      const est = p.picks.map((k, i) => expectedF1(k, pr[i], reference))
      const other = 1 - j
      const pick = est[other] > est[j] + m ? other : j
      if (pick !== j) changed++
      return s + f1(p.picks[pick].words, p)
    }, 0) / pages.length
    console.log(`choose m=${m}: ${mean.toFixed(4)} (${changed} pages change path)`)
  }
}
