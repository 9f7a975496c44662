/**
 * The Excel reader for XML workbooks (.xlsx, .xlsm): workbook order and names, shared strings,
 * number formats applied as Excel displays them (dates, percentages, currency; SheetJS's SSF
 * formatter), merged cells. Each sheet is parsed only when its page is asked for. Macros
 * (vbaProject.bin) are never read.
 */
import SSF_MODULE from "ssf"
import { structuredBlock, type Block, type DocumentInfo, ZipArchive } from "@strata/core"
import { chartBlocks } from "./Charts.ts"
import { xlsxComments } from "./Comments.ts"
import { imageInfo } from "./MarkdownText.ts"
import { corrupt } from "./Failure.ts"
import { readProperties } from "./OfficeMetadata.ts"
import { page, type ParsedDocument } from "./ReaderKit.ts"
import { parseRange, sheetBlocks, type CellRange } from "./SheetBlocks.ts"
import { CellBudget, maxSheetColumns, maxSheetRows, sheetCuts } from "./SheetLimits.ts"
import { scanSheet, type ScannedCell } from "./SheetScanner.ts"
import { child, childrenNamed, descendants, firstDescendant, parseRelationships, parseXml, relationshipId, relsPartOf, textOf, type XmlElement } from "./Xml.ts"

const SSF = (SSF_MODULE as unknown as { format(fmt: string | number, value: number, opts?: object): string; get_table(): Record<number, string> })

export const formatNumber = (value: number, formatCode: string | undefined, date1904: boolean): string => {
  if (formatCode === undefined || formatCode === "General") return SSF.format("General", value)
  try {
    return SSF.format(formatCode, value, { date1904 })
  } catch {
    return SSF.format("General", value)
  }
}

const sharedStrings = (zip: ZipArchive, part: string | undefined): Array<string> => {
  const xml = part === undefined ? undefined : zip.text(part)
  if (xml === undefined) return []
  const out: Array<string> = []
  for (const si of childrenNamed(parseXml(xml), "si")) {
    // Phonetic runs (rPh) are reading aids, not cell text.
    let text = ""
    for (const c of si.children) {
      if (typeof c === "string") continue
      if (c.name === "t") text += textOf(c)
      else if (c.name === "r") text += textOf(child(c, "t"))
    }
    out.push(text)
  }
  return out
}

const numberFormats = (zip: ZipArchive, part: string | undefined): Array<string | undefined> => {
  const xml = part === undefined ? undefined : zip.text(part)
  if (xml === undefined) return []
  const root = parseXml(xml)
  const custom = new Map<number, string>()
  for (const fmt of descendants(root, "numFmt")) custom.set(Number(fmt.attrs.numFmtId), fmt.attrs.formatCode ?? "General")
  const builtin = SSF.get_table()
  return childrenNamed(child(root, "cellXfs"), "xf").map((xf) => {
    const id = Number(xf.attrs.numFmtId ?? 0)
    return custom.get(id) ?? builtin[id]
  })
}

export const readXlsx = (bytes: Uint8Array, format: string): ParsedDocument => {
  const zip = new ZipArchive(bytes, format)
  const packageRels = parseRelationships(zip.text("_rels/.rels"), "")
  const workbookPart = [...packageRels.values()].find((r) => r.type.endsWith("/officeDocument"))?.target ?? "xl/workbook.xml"
  const workbookXml = zip.text(workbookPart)
  if (workbookXml === undefined) throw corrupt(format, "no workbook part")
  const workbook = parseXml(workbookXml)
  const rels = parseRelationships(zip.text(relsPartOf(workbookPart)), workbookPart)
  const relOf = (suffix: string) => [...rels.values()].find((r) => r.type.endsWith(suffix))?.target
  const date1904 = ["1", "true"].includes(child(workbook, "workbookPr")?.attrs.date1904 ?? "")
  let strings: Array<string> | undefined
  let formats: Array<string | undefined> | undefined
  const sheets = childrenNamed(child(workbook, "sheets"), "sheet").map((s) => ({ name: s.attrs.name ?? "Sheet", part: rels.get(relationshipId(s) ?? "")?.target }))
  const metadata = readProperties(zip.text("docProps/core.xml"))
  const info: DocumentInfo = { metadata }
  const budget = new CellBudget(format)
  const pages = sheets.map((sheet, index) => () => {
    strings ??= sharedStrings(zip, relOf("/sharedStrings"))
    formats ??= numberFormats(zip, relOf("/styles"))
    const xml = sheet.part === undefined ? undefined : zip.text(sheet.part)
    // Chartsheets have no sheetData: they are only their drawing.
    const data = xml === undefined || !xml.includes("sheetData")
      ? { rows: [], merges: [], height: 0, width: 0 }
      : readSheet(xml, strings, formats, date1904, budget.forSheet(sheet.name))
    const diagnostics = sheetCuts(sheet.name, data.height, data.width)
    const blocks = sheetBlocks({ name: sheet.name, rows: data.rows, merges: data.merges }, "xlsx", diagnostics)
    if (sheet.part !== undefined) {
      // Loops, not push(...): a sheet's comments can number more than the stack takes as arguments.
      for (const block of drawingBlocks(zip, sheet.part)) blocks.push(block)
      for (const block of xlsxComments(zip, parseRelationships(zip.text(relsPartOf(sheet.part)), sheet.part))) blocks.push(block)
    }
    return page(index + 1, blocks, diagnostics.length > 0 ? { diagnostics } : {})
  })
  return { info, pages }
}

/** Charts (as caption + data table) and pictures (alt text) of a sheet's drawing, in anchor order. */
const drawingBlocks = (zip: ZipArchive, sheetPart: string): Array<Block> => {
  const sheetRels = parseRelationships(zip.text(relsPartOf(sheetPart)), sheetPart)
  const blocks: Array<Block> = []
  for (const rel of sheetRels.values()) {
    if (!rel.type.endsWith("/drawing") || rel.external) continue
    const xml = zip.text(rel.target)
    if (xml === undefined) continue
    const drawingRels = parseRelationships(zip.text(relsPartOf(rel.target)), rel.target)
    const anchors = parseXml(xml).children.filter((c): c is XmlElement => typeof c !== "string")
    for (const anchor of anchors) {
      const chartId = relationshipId(firstDescendant(anchor, "chart"))
      const chartPart = chartId === undefined ? undefined : drawingRels.get(chartId)?.target
      const chartXml = chartPart === undefined ? undefined : zip.text(chartPart)
      if (chartXml !== undefined) blocks.push(...chartBlocks(chartXml, "xlsx"))
      else if (firstDescendant(anchor, "pic") !== undefined) {
        blocks.push(structuredBlock("figure", { image: imageInfo(firstDescendant(anchor, "cNvPr")?.attrs.descr ?? "") }, { source: "xlsx" }))
      }
    }
  }
  return blocks
}

const readSheet = (
  xml: string,
  strings: ReadonlyArray<string>,
  formats: ReadonlyArray<string | undefined>,
  date1904: boolean,
  countCell: () => void
): { rows: Array<Array<string | undefined>>; merges: Array<CellRange>; height: number; width: number } => {
  const rows: Array<Array<string | undefined>> = []
  // The extent of the data, cells past the limits included, for the warning that says what was cut.
  let height = 0
  let width = 0
  const mergeRefs = scanSheet(xml, (cell) => {
    if (cell.col < 0) return
    if (cell.row >= maxSheetRows || cell.col >= maxSheetColumns) {
      // Counted from the raw value: formatting cells that are dropped anyway would cost the most.
      if ((cell.value ?? "").length === 0) return
      height = Math.max(height, cell.row + 1)
      width = Math.max(width, cell.col + 1)
      return
    }
    const text = cellText(cell, strings, formats, date1904)
    if (text.length === 0) return
    height = Math.max(height, cell.row + 1)
    width = Math.max(width, cell.col + 1)
    countCell()
    ;(rows[cell.row] ??= [])[cell.col] = text
  })
  const merges = mergeRefs.map(parseRange).filter((m): m is CellRange => m !== undefined)
  return { rows, merges, height, width }
}

const cellText = (cell: ScannedCell, strings: ReadonlyArray<string>, formats: ReadonlyArray<string | undefined>, date1904: boolean): string => {
  const raw = cell.value ?? ""
  switch (cell.type) {
    case "inlineStr":
    case "str":
    case "e":
      return raw
    case "s":
      return strings[Number(raw)] ?? ""
    case "b":
      return raw === "1" ? "TRUE" : "FALSE"
    case "d":
      return raw.replace(/T00:00:00(?:\.000)?Z?$/, "")
    default: {
      const value = Number(raw)
      if (raw.length === 0 || !Number.isFinite(value)) return raw
      return formatNumber(value, formats[cell.style], date1904)
    }
  }
}
