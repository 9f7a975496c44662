/**
 * Gradient-boosted trees on up to 32 quantile bins a feature, in plain TypeScript: the one trainer
 * behind models/boilerplate (packages/core/src/clean), models/main-content (binary, log loss:
 * `trainTrees`) and models/layout (softmax, one tree a class a round: Trees.ts, which grows its
 * trees with `growTree`). Trees are plain arrays so that a model is JSON; a binary model has the
 * shape of `TreeModel` in packages/core/src/clean/CleanContent.ts.
 */

export interface Tree {
  feature: Array<number>
  split: Array<number>
  left: Array<number>
  right: Array<number>
  value: Array<number>
}

export interface QuantileBins {
  /** Each feature's candidate splits, ascending. */
  readonly edges: Array<Array<number>>
  /** Feature-major: `bins[f][i]` is the bin of row i's feature f (the count of edges below it). */
  readonly bins: Array<Uint8Array>
}

/**
 * Candidate splits: 31 quantiles of each feature (fewer where they coincide). `distinct` takes
 * them over the feature's distinct values (the binary models), otherwise over all rows' values
 * (the layout model); the choice changes the trees, so each model keeps the one it was trained with.
 */
export const quantileBins = (X: ReadonlyArray<ReadonlyArray<number>>, distinct: boolean): QuantileBins => {
  const n = X.length, nf = X[0].length
  const edges: Array<Array<number>> = []
  const bins: Array<Uint8Array> = []
  for (let f = 0; f < nf; f++) {
    const sorted = (distinct ? [...new Set(X.map((r) => r[f]))] : X.map((r) => r[f])).sort((a, b) => a - b)
    const cuts = new Set<number>()
    for (let q = 1; q < 32; q++) cuts.add(sorted[Math.floor((q / 32) * (sorted.length - 1))])
    const e = [...cuts].sort((a, b) => a - b)
    edges.push(e)
    const column = new Uint8Array(n)
    for (let i = 0; i < n; i++) {
      let b = 0
      while (b < e.length && X[i][f] > e[b]) b++
      column[i] = b
    }
    bins.push(column)
  }
  return { edges, bins }
}

export interface GrowOptions {
  readonly depth: number
  readonly minLeaf: number
  readonly lambda: number
  /** The learning rate a leaf's Newton step is multiplied by ... */
  readonly rate: number
  /** ... and then this (softmax: (K-1)/K; 1 leaves the step as it is). Two factors, applied in this order, as the models were trained. */
  readonly factor: number
  /** The least gain a split must beat. */
  readonly minGain: number
  /** How a split value is stored (the layout model rounds to float32, as ONNX compares). */
  readonly split: (edge: number) => number
}

/** One tree fitted to gradients `g` and hessians `h` over `rows`, split by gain with L2 `lambda`. */
export const growTree = (
  { edges, bins }: QuantileBins, g: ArrayLike<number>, h: ArrayLike<number>, rows: Int32Array, options: GrowOptions
): Tree => {
  const { depth, minLeaf, lambda, rate, factor, minGain } = options
  const nf = edges.length
  const tree: Tree = { feature: [], split: [], left: [], right: [], value: [] }
  const gs = new Float64Array(33), hs = new Float64Array(33), cs = new Int32Array(33)
  const grow = (rows: Int32Array, level: number): number => {
    const node = tree.feature.length
    tree.feature.push(-1); tree.split.push(0); tree.left.push(-1); tree.right.push(-1); tree.value.push(0)
    let G = 0, H = 0
    for (const i of rows) { G += g[i]; H += h[i] }
    tree.value[node] = (-G / (H + lambda)) * rate * factor
    if (level >= depth || rows.length < 2 * minLeaf) return node
    let best = { gain: minGain, f: -1, b: -1 }
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
    tree.split[node] = options.split(edges[best.f][best.b])
    const column = bins[best.f]
    tree.left[node] = grow(rows.filter((i) => column[i] <= best.b), level + 1)
    tree.right[node] = grow(rows.filter((i) => column[i] > best.b), level + 1)
    return node
  }
  grow(rows, 0)
  return tree
}

/** The leaf value `tree` gives `row`. */
export const leafValue = (tree: Tree, row: ReadonlyArray<number>): number => {
  let node = 0
  while (tree.feature[node] >= 0) node = row[tree.feature[node]] <= tree.split[node] ? tree.left[node] : tree.right[node]
  return tree.value[node]
}

export interface BoostOptions {
  readonly rounds: number
  readonly depth: number
  readonly rate: number
  readonly minLeaf: number
}

/** Binary log-loss boosting with row weights `w`: the base log-odds and the trees (L2 lambda 1). */
export const trainTrees = (X: ReadonlyArray<ReadonlyArray<number>>, y: ReadonlyArray<number>, w: ReadonlyArray<number>, options: BoostOptions): { base: number; trees: Array<Tree> } => {
  const { rounds, depth, rate, minLeaf } = options
  const binned = quantileBins(X, true)
  const positive = y.reduce((s, v, i) => s + v * w[i], 0) / w.reduce((s, v) => s + v, 0)
  const base = Math.log(positive / (1 - positive))
  const score = X.map(() => base)
  const trees: Array<Tree> = []
  const all = Int32Array.from({ length: X.length }, (_, i) => i)
  const grow: GrowOptions = { depth, minLeaf, lambda: 1, rate, factor: 1, minGain: 0, split: (edge) => edge }
  for (let round = 0; round < rounds; round++) {
    const g = score.map((s, i) => (1 / (1 + Math.exp(-s)) - y[i]) * w[i])
    const h = score.map((s, i) => {
      const p = 1 / (1 + Math.exp(-s))
      return Math.max(1e-6, p * (1 - p)) * w[i]
    })
    const tree = growTree(binned, g, h, all, grow)
    trees.push(tree)
    for (let i = 0; i < X.length; i++) score[i] += leafValue(tree, X[i])
  }
  return { base, trees }
}

/** A binary model's probability for `row`. */
export const predict = (model: { base: number; trees: ReadonlyArray<Tree> }, row: ReadonlyArray<number>): number => {
  let s = model.base
  for (const tree of model.trees) s += leafValue(tree, row)
  return 1 / (1 + Math.exp(-s))
}
