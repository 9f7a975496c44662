/**
 * Lists the regions of generated documents whose label our heuristic layout read as another kind
 * (one line each: seed, page, truth -> ours, the block's size against the body, styles, fonts and
 * text), to find what a layout rule misses; the layout bench (Layout.ts) only counts them.
 *
 *   node -C @strata/source bench/pdf/LayoutMisses.ts [--source latex|html] [--from 0] [--to 59]
 *     [--truth section_header] [--ours text] [--limit 200] [--unfound]
 */
import { readFileSync } from "node:fs"
import { parseArgs } from "node:util"
import { Effect, Stream } from "effect"
import type { LayoutBlock } from "@strata/core"
import { heuristicLayout, heuristicReadingOrder, heuristicTables, pdfReaderWith } from "../../packages/pdf/src/index.ts"
import { bodySizeOf } from "../../packages/pdf/src/LayoutFeatures.ts"
import { Layout } from "../../packages/core/src/stages/Layout.ts"
import { ensureGenerated, generatedDir, latexDir } from "./LayoutData.ts"
import { area, type Box, foldLabel, intersection as overlap } from "./LayoutMetric.ts"

const { values: args } = parseArgs({
  options: {
    source: { type: "string", default: "latex" },
    from: { type: "string", default: "0" },
    to: { type: "string", default: "59" },
    truth: { type: "string", default: "section_header" },
    ours: { type: "string", default: "text" },
    limit: { type: "string", default: "200" },
    /** List the regions of --truth that no block of ours matches at all, instead. */
    unfound: { type: "boolean", default: false }
  }
})
const source = args.source === "html" ? "html" : "latex"
const dir = source === "html" ? generatedDir : latexDir
const from = Number(args.from), to = Number(args.to)
ensureGenerated(from, to, dir, source)

interface Labelled { readonly pageNumber: number; readonly width: number; readonly height: number; readonly body: number; readonly blocks: ReadonlyArray<LayoutBlock> }
const read = async (bytes: Uint8Array) => {
  const pages: Array<Labelled> = []
  const inner = heuristicLayout(heuristicTables)
  const layout = Layout.of({
    name: inner.name,
    begin: Effect.map(inner.begin, (session) => ({
      analyse: session.analyse,
      label: (page, neighbours) => Effect.tap(session.label(page, neighbours), (p) => Effect.sync(() => {
        pages.push({ pageNumber: p.pageNumber, width: p.width, height: p.height, body: bodySizeOf([p, ...neighbours]), blocks: p.blocks })
      }))
    }))
  })
  const reader = pdfReaderWith({ layout, readingOrder: heuristicReadingOrder })
  await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const result = yield* reader.read({ bytes, format: "pdf", options: { mode: "fast", deadline: Date.now() + 120_000 } })
    yield* Stream.runDrain(result.pages)
  })))
  return pages
}

let shown = 0
const counts = new Map<string, number>()
for (let seed = from; seed <= to && shown < Number(args.limit); seed++) {
  let json: { width: number; height: number; pages: Array<{ regions: Array<{ label: string; box: Box }> }> }
  try {
    json = JSON.parse(readFileSync(`${dir}${seed}.json`, "utf8"))
  } catch {
    continue
  }
  const pages = await read(new Uint8Array(readFileSync(`${dir}${seed}.pdf`)))
  for (const page of pages) {
    const regions = (json.pages[page.pageNumber - 1]?.regions ?? []).map((r) => {
      const box: Box = [r.box[0] / json.width, r.box[1] / json.height, r.box[2] / json.width, r.box[3] / json.height]
      return { label: foldLabel(r.label, box), box }
    })
    if (args.unfound) {
      const boxes = page.blocks.map((b): Box => [b.x0 / page.width, b.top / page.height, b.x1 / page.width, b.bottom / page.height])
      for (const r of regions) {
        if (r.label !== args.truth || boxes.some((b) => overlap(b, r.box) >= 0.5 * Math.min(area(b), area(r.box)))) continue
        console.log(`${seed} p${page.pageNumber} unfound ${r.label} [${r.box.map((v) => v.toFixed(3)).join(", ")}]`)
        if (++shown >= Number(args.limit)) break
      }
      continue
    }
    for (const block of page.blocks) {
      const box: Box = [block.x0 / page.width, block.top / page.height, block.x1 / page.width, block.bottom / page.height]
      // Matched as the layout bench matches (LayoutMetric.ts): the region it overlaps most, by half the smaller box.
      const region = regions.reduce<{ r: (typeof regions)[number] | undefined; v: number }>((best, r) => {
        const v = overlap(box, r.box)
        return v > best.v && v >= 0.5 * Math.min(area(box), area(r.box)) ? { r, v } : best
      }, { r: undefined, v: 0 }).r
      if (region === undefined || region.label !== args.truth || foldLabel(block.kind, box) !== args.ours) continue
      const text = block.lines.map((l) => l.text).join(" ")
      const fonts = [...new Set(block.lines.flatMap((l) => l.runs.map((r) => r.font ?? "?")))].join(",")
      const styles = `${block.lines.every((l) => l.bold) ? "B" : "-"}${block.lines.every((l) => l.italic) ? "I" : "-"}`
      const rows = new Set(block.lines.map((l) => l.row)).size
      counts.set(fonts, (counts.get(fonts) ?? 0) + 1)
      console.log(`${seed} p${page.pageNumber} ${(block.size / page.body).toFixed(2)} ${styles} rows ${rows} [${fonts}] ${JSON.stringify(text.slice(0, 90))}`)
      if (++shown >= Number(args.limit)) break
    }
  }
}
console.log("\nby fonts:")
for (const [f, n] of [...counts].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log(n, f)
