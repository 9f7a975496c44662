/**
 * Multiclass gradient-boosted trees (softmax, one tree per class per round) on quantile bins, in
 * plain TypeScript: the block classifier's model. `train` fits (its trees grown by
 * models/lib/BoostedTrees.ts), `predict` scores a row. The trees are plain arrays so that the model
 * is a JSON file.
 */

import { growTree, quantileBins, type Tree } from "../lib/BoostedTrees.ts"

export type { Tree }

export interface TreeModel {
  readonly classes: ReadonlyArray<string>
  readonly features: ReadonlyArray<string>
  readonly base: ReadonlyArray<number>
  /** Round by round, one tree per class. */
  readonly rounds: ReadonlyArray<ReadonlyArray<Tree>>
  /** The confidence gate chosen by train.ts on validation data: below it the heuristic's kind stays. */
  readonly gate?: number
}

// Splits are float32 values and features are compared rounded to float32, as ONNX's tree ensembles
// do (Onnx.ts): the TypeScript trees and onnxruntime take the same branch for every row.
const leaf = (tree: Tree, row: ReadonlyArray<number>) => {
  let node = 0
  while (tree.feature[node] >= 0) node = Math.fround(row[tree.feature[node]]) <= tree.split[node] ? tree.left[node] : tree.right[node]
  return tree.value[node]
}

/** Class probabilities of one row. */
export const predict = (model: TreeModel, row: ReadonlyArray<number>): Array<number> => {
  const score = [...model.base]
  for (const round of model.rounds) for (let k = 0; k < round.length; k++) score[k] += leaf(round[k], row)
  const max = Math.max(...score)
  const e = score.map((s) => Math.exp(s - max))
  const sum = e.reduce((a, b) => a + b, 0)
  return e.map((v) => v / sum)
}

export interface TrainOptions { readonly rounds: number; readonly depth: number; readonly rate: number; readonly minLeaf: number; readonly lambda: number }

export const train = (
  X: ReadonlyArray<ReadonlyArray<number>>, y: ReadonlyArray<number>, classes: ReadonlyArray<string>, features: ReadonlyArray<string>,
  options: TrainOptions, log?: (round: number, loss: number) => void
): TreeModel => {
  const n = X.length, K = classes.length
  const { depth, rate, minLeaf, lambda } = options
  // Candidate splits over all rows' values; splits stored as float32 (see `leaf`).
  const binned = quantileBins(X, false)
  const grow = { depth, minLeaf, lambda, rate, factor: (K - 1) / K, minGain: 1e-9, split: Math.fround }
  const all = Int32Array.from({ length: n }, (_, i) => i)
  const prior = classes.map((_, k) => Math.max(1, y.filter((c) => c === k).length) / n)
  const base = prior.map((p) => Math.log(p))
  const score = Array.from({ length: K }, (_, k) => new Float64Array(n).fill(base[k]))
  const g = new Float64Array(n), h = new Float64Array(n)
  const rounds: Array<Array<Tree>> = []
  const p = Array.from({ length: K }, () => new Float64Array(n))
  for (let round = 0; round < options.rounds; round++) {
    let loss = 0
    for (let i = 0; i < n; i++) {
      let max = -Infinity
      for (let k = 0; k < K; k++) max = Math.max(max, score[k][i])
      let sum = 0
      for (let k = 0; k < K; k++) { p[k][i] = Math.exp(score[k][i] - max); sum += p[k][i] }
      for (let k = 0; k < K; k++) p[k][i] /= sum
      loss -= Math.log(Math.max(1e-12, p[y[i]][i]))
    }
    log?.(round, loss / n)
    const trees: Array<Tree> = []
    for (let k = 0; k < K; k++) {
      for (let i = 0; i < n; i++) {
        g[i] = p[k][i] - (y[i] === k ? 1 : 0)
        h[i] = Math.max(1e-6, p[k][i] * (1 - p[k][i]))
      }
      const tree = growTree(binned, g, h, all, grow)
      trees.push(tree)
      for (let i = 0; i < n; i++) score[k][i] += leaf(tree, X[i])
    }
    rounds.push(trees)
  }
  return { classes, features, base, rounds }
}
