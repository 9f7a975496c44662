/**
 * Gradient-boosted trees (log loss, on up to 32 quantile bins a feature), the trainer of
 * models/boilerplate/train.ts lifted out so that it can be called per cross-validation fold.
 * The trees it returns have the shape of `TreeModel` (packages/core/src/clean/CleanContent.ts).
 */

export interface Tree {
  feature: Array<number>
  split: Array<number>
  left: Array<number>
  right: Array<number>
  value: Array<number>
}

export interface BoostOptions {
  readonly rounds: number
  readonly depth: number
  readonly rate: number
  readonly minLeaf: number
}

export const trainTrees = (X: ReadonlyArray<ReadonlyArray<number>>, y: ReadonlyArray<number>, w: ReadonlyArray<number>, options: BoostOptions): { base: number; trees: Array<Tree> } => {
  const { rounds, depth, rate, minLeaf } = options
  const nf = X[0].length
  const edges: Array<Array<number>> = []
  for (let f = 0; f < nf; f++) {
    const values = [...new Set(X.map((r) => r[f]))].sort((a, b) => a - b)
    const cuts: Array<number> = []
    for (let q = 1; q < 32; q++) cuts.push(values[Math.floor((q / 32) * (values.length - 1))])
    edges.push([...new Set(cuts)])
  }
  const bins = X.map((r) => r.map((v, f) => {
    let b = 0
    while (b < edges[f].length && v > edges[f][b]) b++
    return b
  }))
  const positive = y.reduce((s, v, i) => s + v * w[i], 0) / w.reduce((s, v) => s + v, 0)
  const base = Math.log(positive / (1 - positive))
  const score = X.map(() => base)
  const trees: Array<Tree> = []
  const lambda = 1
  for (let round = 0; round < rounds; round++) {
    const g = score.map((s, i) => (1 / (1 + Math.exp(-s)) - y[i]) * w[i])
    const h = score.map((s, i) => {
      const p = 1 / (1 + Math.exp(-s))
      return Math.max(1e-6, p * (1 - p)) * w[i]
    })
    const tree: Tree = { feature: [], split: [], left: [], right: [], value: [] }
    const grow = (rows: Array<number>, level: number): number => {
      const node = tree.feature.length
      tree.feature.push(-1)
      tree.split.push(0)
      tree.left.push(-1)
      tree.right.push(-1)
      tree.value.push(0)
      let G = 0
      let H = 0
      for (const i of rows) {
        G += g[i]
        H += h[i]
      }
      tree.value[node] = (-G / (H + lambda)) * rate
      if (level >= depth || rows.length < 2 * minLeaf) return node
      let best = { gain: 0, f: -1, b: -1 }
      for (let f = 0; f < nf; f++) {
        const nb = edges[f].length + 1
        const gs = new Float64Array(nb)
        const hs = new Float64Array(nb)
        const cs = new Int32Array(nb)
        for (const i of rows) {
          const b = bins[i][f]
          gs[b] += g[i]
          hs[b] += h[i]
          cs[b]++
        }
        let gl = 0
        let hl = 0
        let cl = 0
        for (let b = 0; b < nb - 1; b++) {
          gl += gs[b]
          hl += hs[b]
          cl += cs[b]
          const gr = G - gl
          const hr = H - hl
          const cr = rows.length - cl
          if (cl < minLeaf || cr < minLeaf) continue
          const gain = (gl * gl) / (hl + lambda) + (gr * gr) / (hr + lambda) - (G * G) / (H + lambda)
          if (gain > best.gain) best = { gain, f, b }
        }
      }
      if (best.f < 0) return node
      tree.feature[node] = best.f
      tree.split[node] = edges[best.f][best.b]
      tree.left[node] = grow(rows.filter((i) => bins[i][best.f] <= best.b), level + 1)
      tree.right[node] = grow(rows.filter((i) => bins[i][best.f] > best.b), level + 1)
      return node
    }
    grow(X.map((_, i) => i), 0)
    trees.push(tree)
    for (let i = 0; i < X.length; i++) {
      let node = 0
      while (tree.feature[node] >= 0) node = X[i][tree.feature[node]] <= tree.split[node] ? tree.left[node] : tree.right[node]
      score[i] += tree.value[node]
    }
  }
  return { base, trees }
}

export const predict = (model: { base: number; trees: ReadonlyArray<Tree> }, row: ReadonlyArray<number>): number => {
  let s = model.base
  for (const tree of model.trees) {
    let node = 0
    while (tree.feature[node] >= 0) node = row[tree.feature[node]] <= tree.split[node] ? tree.left[node] : tree.right[node]
    s += tree.value[node]
  }
  return 1 / (1 + Math.exp(-s))
}
