/**
 * Multiclass gradient-boosted trees (softmax, one tree per class per round) on quantile bins, in
 * plain TypeScript: the block classifier's model. `train` fits, `predict` scores a row. The trees
 * are plain arrays so that the model is a JSON file.
 */

export interface Tree { readonly feature: Array<number>; readonly split: Array<number>; readonly left: Array<number>; readonly right: Array<number>; readonly value: Array<number> }

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
  const n = X.length, nf = X[0].length, K = classes.length
  const { depth, rate, minLeaf, lambda } = options
  // Candidate splits: up to 32 quantiles of each feature; rows as bin indices, feature-major.
  const edges: Array<Array<number>> = []
  const bins: Array<Uint8Array> = []
  for (let f = 0; f < nf; f++) {
    const sorted = X.map((r) => r[f]).sort((a, b) => a - b)
    const cuts = new Set<number>()
    for (let q = 1; q < 32; q++) cuts.add(sorted[Math.floor((q / 32) * (n - 1))])
    const e = [...cuts].sort((a, b) => a - b)
    edges.push(e)
    const column = new Uint8Array(n)
    for (let i = 0; i < n; i++) { let b = 0; while (b < e.length && X[i][f] > e[b]) b++; column[i] = b }
    bins.push(column)
  }
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
      const tree: Tree = { feature: [], split: [], left: [], right: [], value: [] }
      const grow = (rows: Int32Array, level: number): number => {
        const node = tree.feature.length
        tree.feature.push(-1); tree.split.push(0); tree.left.push(-1); tree.right.push(-1); tree.value.push(0)
        let G = 0, H = 0
        for (const i of rows) { G += g[i]; H += h[i] }
        tree.value[node] = (-G / (H + lambda)) * rate * ((K - 1) / K)
        if (level >= depth || rows.length < 2 * minLeaf) return node
        let best = { gain: 1e-9, f: -1, b: -1 }
        const gs = new Float64Array(33), hs = new Float64Array(33), cs = new Int32Array(33)
        for (let f = 0; f < nf; f++) {
          const nb = edges[f].length + 1
          gs.fill(0); hs.fill(0); cs.fill(0)
          const column = bins[f]
          for (const i of rows) { const b = column[i]; gs[b] += g[i]; hs[b] += h[i]; cs[b]++ }
          let gl = 0, hl = 0, cl = 0
          for (let b = 0; b < nb - 1; b++) {
            gl += gs[b]; hl += hs[b]; cl += cs[b]
            const gr = G - gl, hr = H - hl, cr = rows.length - cl
            if (cl < minLeaf || cr < minLeaf) continue
            const gain = (gl * gl) / (hl + lambda) + (gr * gr) / (hr + lambda) - (G * G) / (H + lambda)
            if (gain > best.gain) best = { gain, f, b }
          }
        }
        if (best.f < 0) return node
        tree.feature[node] = best.f
        tree.split[node] = Math.fround(edges[best.f][best.b])
        const column = bins[best.f]
        tree.left[node] = grow(rows.filter((i) => column[i] <= best.b), level + 1)
        tree.right[node] = grow(rows.filter((i) => column[i] > best.b), level + 1)
        return node
      }
      grow(Int32Array.from({ length: n }, (_, i) => i), 0)
      trees.push(tree)
      for (let i = 0; i < n; i++) score[k][i] += leaf(tree, X[i])
    }
    rounds.push(trees)
  }
  return { classes, features, base, rounds }
}
