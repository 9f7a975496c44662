/**
 * DrawingML charts (`c:chartSpace` parts referenced from slides and documents) as data: the
 * chart title and a table of the cached series values by category, so that the numbers behind
 * a chart are in the markdown even though the picture is not.
 */
import { gridOfRows, structuredBlock, type Block } from "@strata/core"
import { escapeInline } from "./MarkdownText.ts"
import { child, childrenNamed, descendants, firstDescendant, parseXml, textOf, type XmlElement } from "./Xml.ts"

const chartTypes = /^(bar|bar3D|line|line3D|pie|pie3D|doughnut|area|area3D|scatter|radar|bubble|ofPie|stock|surface|surface3D)Chart$/

/** Cached points of a reference (`c:strRef`/`c:numRef`/literal), by index. */
const points = (el: XmlElement | undefined): Array<string> => {
  const out: Array<string> = []
  if (el === undefined) return out
  // Multi-level category caches keep their innermost level first.
  const cache = firstDescendant(el, "strCache") ?? firstDescendant(el, "numCache") ?? firstDescendant(el, "strLit") ?? firstDescendant(el, "numLit") ?? firstDescendant(el, "lvl")
  for (const pt of childrenNamed(cache, "pt")) {
    const idx = Number(pt.attrs.idx ?? out.length)
    if (Number.isInteger(idx) && idx >= 0 && idx < 100_000) out[idx] = textOf(child(pt, "v")).trim()
  }
  return out
}

const kindName = (name: string): string => {
  const base = name.replace(/(3D)?Chart$/, "")
  return `${base.charAt(0).toUpperCase()}${base.slice(1)} chart`
}

/** Blocks for one chart part's XML: a caption (title or kind) and the data table. */
export const chartBlocks = (xml: string, source: string): Array<Block> => {
  const root = parseXml(xml)
  const chart = child(root, "chart") ?? root
  const title = descendants(child(chart, "title") ?? { name: "", qname: "", attrs: {}, children: [] }, "t").map(textOf).join("").trim()
  const plot = child(chart, "plotArea")
  const blocks: Array<Block> = []
  const kinds: Array<string> = []
  const series: Array<{ name: string; categories: Array<string>; values: Array<string> }> = []
  for (const group of plot === undefined ? [] : plot.children) {
    if (typeof group === "string" || !chartTypes.test(group.name)) continue
    kinds.push(kindName(group.name))
    for (const ser of childrenNamed(group, "ser")) {
      const name = points(child(ser, "tx")).join(" ") || textOf(child(ser, "tx")).trim() || `Series ${series.length + 1}`
      series.push({ name, categories: points(child(ser, "cat") ?? child(ser, "xVal")), values: points(child(ser, "val") ?? child(ser, "yVal")) })
    }
  }
  const caption = [title, kinds.join(", ")].filter((s) => s.length > 0).join(" — ")
  if (caption.length > 0) blocks.push(structuredBlock("caption", { text: escapeInline(caption) }, { source }))
  const rowCount = Math.min(10_000, Math.max(0, ...series.map((s) => Math.max(s.categories.length, s.values.length))))
  if (series.length > 0 && rowCount > 0) {
    const categories = series.find((s) => s.categories.length > 0)?.categories ?? []
    const rows = [["", ...series.map((s) => escapeInline(s.name))]]
    for (let i = 0; i < rowCount; i++) rows.push([escapeInline(categories[i] ?? String(i + 1)), ...series.map((s) => s.values[i] ?? "")])
    const table = structuredBlock("table", { table: { ...gridOfRows(rows), headerRows: 1 } }, { source, label: "chart_data" })
    if (table.content.length > 0) blocks.push(table)
  }
  return blocks
}
