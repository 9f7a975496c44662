/**
 * The tables of a markdown string read back into grids, so that the table-neighbour score can be
 * given to any engine's markdown (pdf-inspector writes nothing else) with one piece of code. GFM
 * pipe tables have no spans (a merged cell is an empty slot); HTML tables (what our TableWriter
 * writes when a cell spans) keep `rowspan`/`colspan`. Our own markdown read back this way gives
 * the grids of our table blocks, which TableNeighbours.ts checks.
 */

export interface GridCell { readonly row: number; readonly col: number; readonly rowSpan: number; readonly colSpan: number; readonly text: string }
export interface Grid { readonly rows: number; readonly cols: number; readonly cells: ReadonlyArray<GridCell> }

const pipeGrid = (lines: ReadonlyArray<string>): Grid => {
  const rows = lines
    .filter((l) => !/^\|(\s*:?-+:?\s*\|)+$/.test(l))
    .map((l) => l.slice(1, -1).split(/(?<!\\)\|/).map((c) => c.replace(/\\\|/g, "|")))
  const cells = rows.flatMap((cols, row) => cols.map((text, col) => ({ row, col, rowSpan: 1, colSpan: 1, text })))
  return { rows: rows.length, cols: Math.max(0, ...rows.map((r) => r.length)), cells }
}

const span = (attrs: string, name: string) => Math.max(1, Number(new RegExp(`${name}\\s*=\\s*["']?(\\d+)`, "i").exec(attrs)?.[1] ?? 1))

/** Cells placed slot by slot, skipping slots that a rowspan from above already covers. */
const htmlGrid = (html: string): Grid => {
  const taken = new Set<string>()
  const cells: Array<GridCell> = []
  let row = 0
  let cols = 0
  for (const tr of html.matchAll(/<tr\b[^>]*>([\s\S]*?)<\/tr>/gi)) {
    let col = 0
    for (const td of tr[1].matchAll(/<t([dh])\b([^>]*)>([\s\S]*?)<\/t\1>/gi)) {
      while (taken.has(`${row},${col}`)) col++
      const rowSpan = span(td[2], "rowspan"), colSpan = span(td[2], "colspan")
      for (let r = row; r < row + rowSpan; r++) for (let c = col; c < col + colSpan; c++) taken.add(`${r},${c}`)
      cells.push({ row, col, rowSpan, colSpan, text: td[3].replace(/<br\s*\/?>/gi, " ") })
      col += colSpan
      cols = Math.max(cols, col)
    }
    row++
  }
  const rows = Math.max(row, ...cells.map((c) => c.row + c.rowSpan))
  return { rows, cols, cells }
}

/** Every table of `markdown`, in order. */
export const markdownGrids = (markdown: string): Array<Grid> => {
  const grids: Array<Grid> = []
  for (const m of markdown.matchAll(/<table\b[\s\S]*?<\/table>/gi)) grids.push(htmlGrid(m[0]))
  let block: Array<string> = []
  const flush = () => {
    if (block.length > 0) grids.push(pipeGrid(block))
    block = []
  }
  for (const line of markdown.replace(/<table\b[\s\S]*?<\/table>/gi, "\n").split("\n")) {
    const t = line.trim()
    if (t.length > 1 && t.startsWith("|") && t.endsWith("|")) block.push(t)
    else flush()
  }
  flush()
  return grids
}
