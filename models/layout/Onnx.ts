/**
 * The block classifier's trees as an ONNX graph: `X` (float, [n, features]) through ai.onnx.ml's
 * TreeEnsembleRegressor (one target per class, summed from the base scores) and a Softmax over the
 * classes to `probabilities` ([n, classes]), so that onnxruntime-node scores blocks as
 * `Trees.predict` does. No ONNX or protobuf package is installed, so the protobuf is written here:
 * only the fields of onnx.proto (IR version 8) this graph needs.
 *
 * Thresholds are float32 in ONNX; the trees hold float32 splits and `Trees.predict` compares a
 * float32-rounded feature, so both take the same branch everywhere.
 */
import type { TreeModel } from "./Trees.ts"

// --- protobuf wire format: varints, length-delimited fields, packed repeated scalars ---
const varint = (out: Array<number>, value: number | bigint) => {
  let v = BigInt.asUintN(64, BigInt(value))
  do {
    let byte = Number(v & 0x7fn)
    v >>= 7n
    if (v !== 0n) byte |= 0x80
    out.push(byte)
  } while (v !== 0n)
}
const key = (out: Array<number>, field: number, wire: number) => varint(out, (field << 3) | wire)
const bytesField = (out: Array<number>, field: number, bytes: ArrayLike<number>) => {
  key(out, field, 2)
  varint(out, bytes.length)
  for (let i = 0; i < bytes.length; i++) out.push(bytes[i])
}
const text = (s: string) => new TextEncoder().encode(s)
const stringField = (out: Array<number>, field: number, s: string) => bytesField(out, field, text(s))
const intField = (out: Array<number>, field: number, v: number) => { key(out, field, 0); varint(out, v) }
const message = (build: (out: Array<number>) => void) => { const out: Array<number> = []; build(out); return out }

// AttributeProto.AttributeType
const FLOAT = 1, INT = 2, STRING = 3, FLOATS = 6, INTS = 7, STRINGS = 8

type Attribute = { name: string } & (
  | { type: typeof INT; value: number }
  | { type: typeof STRING; value: string }
  | { type: typeof FLOAT; value: number }
  | { type: typeof FLOATS; value: ArrayLike<number> }
  | { type: typeof INTS; value: ArrayLike<number> }
  | { type: typeof STRINGS; value: ReadonlyArray<string> }
)

const attribute = (a: Attribute) => message((out) => {
  stringField(out, 1, a.name)
  intField(out, 20, a.type)
  switch (a.type) {
    case FLOAT: { key(out, 2, 5); const b = new Uint8Array(new Float32Array([a.value]).buffer); out.push(...b); break }
    case INT: intField(out, 3, a.value); break
    case STRING: stringField(out, 4, a.value); break
    case FLOATS: bytesField(out, 7, new Uint8Array(Float32Array.from(a.value as ArrayLike<number>).buffer)); break
    case INTS: bytesField(out, 8, message((o) => { for (let i = 0; i < a.value.length; i++) varint(o, a.value[i]) })); break
    case STRINGS: for (const s of a.value) stringField(out, 9, s); break
  }
})

const node = (opType: string, domain: string, inputs: ReadonlyArray<string>, outputs: ReadonlyArray<string>, attributes: ReadonlyArray<Attribute>) =>
  message((out) => {
    for (const i of inputs) stringField(out, 1, i)
    for (const o of outputs) stringField(out, 2, o)
    stringField(out, 3, opType)
    stringField(out, 4, opType)
    for (const a of attributes) bytesField(out, 5, attribute(a))
    if (domain !== "") stringField(out, 7, domain)
  })

/** A float tensor value with a symbolic first dimension and a fixed second. */
const valueInfo = (name: string, width: number) => message((out) => {
  stringField(out, 1, name)
  bytesField(out, 2, message((type) => bytesField(type, 1, message((tensor) => {
    intField(tensor, 1, 1) // FLOAT
    bytesField(tensor, 2, message((shape) => {
      bytesField(shape, 1, message((d) => stringField(d, 2, "n")))
      bytesField(shape, 1, message((d) => intField(d, 1, width)))
    }))
  }))))
})

/**
 * The ONNX model (serialised ModelProto) of `model`, with its classes, features and gate as the
 * `strata.layout` metadata entry (JSON) that packages/pdf LearnedLayout.ts reads.
 */
export const toOnnx = (model: TreeModel): Uint8Array => {
  const K = model.classes.length
  const n = { treeIds: [] as Array<number>, nodeIds: [] as Array<number>, features: [] as Array<number>, values: [] as Array<number>, modes: [] as Array<string>, trueIds: [] as Array<number>, falseIds: [] as Array<number> }
  const t = { treeIds: [] as Array<number>, nodeIds: [] as Array<number>, ids: [] as Array<number>, weights: [] as Array<number> }
  model.rounds.forEach((round, r) => round.forEach((tree, k) => {
    const id = r * K + k
    tree.feature.forEach((feature, i) => {
      const isLeaf = feature < 0
      n.treeIds.push(id); n.nodeIds.push(i); n.features.push(isLeaf ? 0 : feature); n.values.push(isLeaf ? 0 : tree.split[i])
      n.modes.push(isLeaf ? "LEAF" : "BRANCH_LEQ"); n.trueIds.push(isLeaf ? 0 : tree.left[i]); n.falseIds.push(isLeaf ? 0 : tree.right[i])
      if (isLeaf) { t.treeIds.push(id); t.nodeIds.push(i); t.ids.push(k); t.weights.push(tree.value[i]) }
    })
  }))
  const ensemble = node("TreeEnsembleRegressor", "ai.onnx.ml", ["X"], ["scores"], [
    { name: "n_targets", type: INT, value: K },
    { name: "aggregate_function", type: STRING, value: "SUM" },
    { name: "post_transform", type: STRING, value: "NONE" },
    { name: "base_values", type: FLOATS, value: model.base },
    { name: "nodes_treeids", type: INTS, value: n.treeIds },
    { name: "nodes_nodeids", type: INTS, value: n.nodeIds },
    { name: "nodes_featureids", type: INTS, value: n.features },
    { name: "nodes_values", type: FLOATS, value: n.values },
    { name: "nodes_modes", type: STRINGS, value: n.modes },
    { name: "nodes_truenodeids", type: INTS, value: n.trueIds },
    { name: "nodes_falsenodeids", type: INTS, value: n.falseIds },
    { name: "target_treeids", type: INTS, value: t.treeIds },
    { name: "target_nodeids", type: INTS, value: t.nodeIds },
    { name: "target_ids", type: INTS, value: t.ids },
    { name: "target_weights", type: FLOATS, value: t.weights }
  ])
  const softmax = node("Softmax", "", ["scores"], ["probabilities"], [{ name: "axis", type: INT, value: 1 }])
  const graph = message((out) => {
    bytesField(out, 1, ensemble)
    bytesField(out, 1, softmax)
    stringField(out, 2, "layout_block_classifier")
    bytesField(out, 11, valueInfo("X", model.features.length))
    bytesField(out, 12, valueInfo("probabilities", K))
  })
  const opset = (domain: string, version: number) => message((out) => { if (domain !== "") stringField(out, 1, domain); intField(out, 2, version) })
  return Uint8Array.from(message((out) => {
    intField(out, 1, 8) // ir_version
    stringField(out, 2, "strata models/layout")
    bytesField(out, 7, graph)
    bytesField(out, 8, opset("", 17))
    bytesField(out, 8, opset("ai.onnx.ml", 3))
    const meta = JSON.stringify({ classes: model.classes, features: model.features, gate: model.gate ?? 0 })
    bytesField(out, 14, message((entry) => { stringField(entry, 1, "strata.layout"); stringField(entry, 2, meta) }))
  }))
}
