/**
 * Figure match: Strata's `figure` blocks against the `pictures` of Docling's JSON references
 * (a peer's layout model, not truth), per page, a pair counting when its boxes overlap with
 * IoU >= 0.5 (greedy, best IoU first). Prints one JSON line: precision, recall, F1 and per file.
 *
 *   node bench/pdf/Figures.ts
 */
import { readdirSync, readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { Effect, Stream } from "effect"
import { pdfReader } from "../../packages/pdf/src/index.ts"

type Box = readonly [number, number, number, number]

const dir = fileURLToPath(new URL("../../../shared/corpus/docling/pdf/", import.meta.url))

interface DoclingJson {
  readonly pages: Record<string, { size: { width: number; height: number } }>
  readonly pictures?: ReadonlyArray<{ prov: ReadonlyArray<{ page_no: number; bbox: { l: number; t: number; r: number; b: number; coord_origin?: string } }> }>
}

/** Docling's picture boxes, normalised to the page with the origin at the top left, by page. */
const referenceBoxes = (json: DoclingJson): Map<number, Array<Box>> => {
  const out = new Map<number, Array<Box>>()
  for (const picture of json.pictures ?? []) {
    for (const prov of picture.prov) {
      const size = json.pages[String(prov.page_no)]?.size
      if (size === undefined) continue
      const { l, t, r, b, coord_origin } = prov.bbox
      const [top, bottom] = coord_origin === "TOPLEFT" ? [t, b] : [size.height - t, size.height - b]
      const list = out.get(prov.page_no) ?? []
      list.push([l / size.width, top / size.height, r / size.width, bottom / size.height])
      out.set(prov.page_no, list)
    }
  }
  return out
}

const iou = (a: Box, b: Box): number => {
  const w = Math.max(0, Math.min(a[2], b[2]) - Math.max(a[0], b[0]))
  const h = Math.max(0, Math.min(a[3], b[3]) - Math.max(a[1], b[1]))
  const inter = w * h
  const union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
  return union > 0 ? inter / union : 0
}

/** Matched pairs between two box lists, greedily by IoU. */
const matches = (ours: ReadonlyArray<Box>, refs: ReadonlyArray<Box>): number => {
  const pairs: Array<[number, number, number]> = []
  for (let i = 0; i < ours.length; i++) for (let j = 0; j < refs.length; j++) {
    const v = iou(ours[i], refs[j])
    if (v >= 0.5) pairs.push([v, i, j])
  }
  pairs.sort((a, b) => b[0] - a[0])
  const usedA = new Set<number>(), usedB = new Set<number>()
  for (const [, i, j] of pairs) if (!usedA.has(i) && !usedB.has(j)) { usedA.add(i); usedB.add(j) }
  return usedA.size
}

const files = readdirSync(dir).filter((f) => f.endsWith(".pdf")).sort()
let tp = 0, ourCount = 0, refCount = 0
const perFile: Record<string, { ours: number; reference: number; matched: number }> = {}
for (const name of files) {
  const refs = referenceBoxes(JSON.parse(readFileSync(`${dir}${name}.json`, "utf8")) as DoclingJson)
  const pages = await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const result = yield* pdfReader.read({ bytes: new Uint8Array(readFileSync(dir + name)), format: "pdf", options: { mode: "fast", deadline: Date.now() + 60_000 } })
    return yield* Stream.runCollect(result.pages)
  })))
  const file = { ours: 0, reference: 0, matched: 0 }
  for (const page of pages) {
    const ours = page.blocks.filter((b) => b.kind === "figure" && b.bbox !== null).map((b) => b.bbox as Box)
    const theirs = refs.get(page.pageNumber) ?? []
    file.ours += ours.length
    file.reference += theirs.length
    file.matched += matches(ours, theirs)
  }
  perFile[name] = file
  tp += file.matched
  ourCount += file.ours
  refCount += file.reference
}
const precision = ourCount > 0 ? tp / ourCount : 0
const recall = refCount > 0 ? tp / refCount : 0
const round = (n: number) => Math.round(n * 1000) / 1000
process.stdout.write(JSON.stringify({
  ours: ourCount, reference: refCount, matched: tp,
  precision: round(precision), recall: round(recall), f1: round(precision + recall > 0 ? 2 * precision * recall / (precision + recall) : 0),
  perFile
}) + "\n")
