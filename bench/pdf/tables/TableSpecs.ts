/**
 * One generated table per seed, with its exact grid: the cells a reader should give back (row,
 * column, spans, text), and the HTML that Chromium lays out and prints (`generate.ts`). The kinds
 * are the ones real documents have and our reader has found hard:
 *
 * - `financial`: a statement's row labels (sections, indented items, totals) under year columns,
 *   with "Year Ended December 31," or two period groups spanning them; numbers with $, commas,
 *   parentheses and dashes; no vertical rules.
 * - `booktabs`: a paper's results table: top, middle and bottom rules, group heads over their
 *   metrics with a short rule under each.
 * - `grid`: every cell ruled, a category column whose cells span rows, a column of text that wraps.
 * - `plain` and `zebra`: no rules at all (or only under the header), rows told apart by spacing or
 *   shaded bands, sometimes a wrapping text column.
 *
 * Empty cells are left out of the grid: a reader may or may not give them, and the scores skip them.
 * All randomness comes from one Faker seeded with the seed.
 */
import { base, en, Faker } from "@faker-js/faker"
import { textFamilies } from "../../../models/layout/data/Documents.ts"

export interface SpecCell { readonly row: number; readonly col: number; readonly rowSpan: number; readonly colSpan: number; readonly text: string }

export interface TableSpec {
  readonly seed: number
  readonly kind: "financial" | "booktabs" | "grid" | "plain" | "zebra"
  readonly font: string
  readonly size: number
  readonly rows: number
  readonly cols: number
  /** How many of the rows are header rows. */
  readonly headerRows: number
  readonly cells: ReadonlyArray<SpecCell>
  /** The page's body: a paragraph, the table (id "t") with its caption, a paragraph. */
  readonly html: string
  readonly css: string
}

const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1)

interface Slot { text: string; rowSpan: number; colSpan: number; th: boolean; cls: string }

export const makeTable = (seed: number, families: ReadonlyArray<string>): TableSpec => {
  const f = new Faker({ locale: [en, base], seed })
  const int = (min: number, max: number) => f.number.int({ min, max })
  const chance = (p: number) => f.datatype.boolean({ probability: p })
  const pick = <T>(xs: ReadonlyArray<T>): T => xs[int(0, xs.length - 1)]
  const words = (min: number, max: number) => cap(f.lorem.words(int(min, max)))
  const fonts = textFamilies(families).filter((x) => !/mono/i.test(x))
  const font = pick(fonts)
  const size = int(8, 11) + pick([0, 0.5])
  const kind = pick(["financial", "financial", "booktabs", "booktabs", "grid", "plain", "zebra"] as const)

  // The grid as rows of slots; `undefined` where a span above or to the left covers the slot.
  const grid: Array<Array<Slot | undefined>> = []
  const put = (r: number, c: number, text: string, opts: Partial<Slot> = {}) => {
    while (grid.length <= r) grid.push([])
    grid[r][c] = { text, rowSpan: 1, colSpan: 1, th: false, cls: "", ...opts }
  }
  let cols = 0, headerRows = 1
  let textCol = -1

  if (kind === "financial") {
    const years = int(2, 3)
    const groups = chance(0.35) ? 2 : 1
    cols = 1 + years * groups
    const y0 = int(2015, 2025)
    const grouped = groups === 2 || chance(0.7)
    if (grouped) {
      headerRows = 2
      if (chance(0.4)) put(0, 0, pick(["(in millions)", "(in thousands, except per share data)", "(Dollars in millions)"]), { th: true, cls: "l" })
      const heads = groups === 2 ? ["Three Months Ended", "Nine Months Ended"].map((h) => `${h} ${pick(["June 30,", "September 30,", "March 31,"])}`) : [pick(["Year Ended December 31,", "Fiscal Year", "For the years ended", "As of December 31,"])]
      heads.forEach((h, g) => put(0, 1 + g * years, h, { colSpan: years, th: true, cls: "gh" }))
    }
    for (let g = 0; g < groups; g++) for (let y = 0; y < years; y++) put(headerRows - 1, 1 + g * years + y, String(y0 - y), { th: true, cls: "yr" })
    let r = headerRows
    const money = (first: boolean) => {
      const v = int(-900, 9000) * (chance(0.3) ? 1000 : 1)
      const body = v < 0 ? `(${(-v).toLocaleString("en-US")})` : v === 0 || chance(0.05) ? "—" : v.toLocaleString("en-US")
      return first && chance(0.5) ? `$ ${body}` : body
    }
    const sections = int(1, 3)
    for (let s = 0; s < sections && r < 22; s++) {
      const titled = chance(0.7)
      if (titled) put(r++, 0, `${words(1, 3)}:`, { cls: "sec" })
      const items = int(2, 5)
      for (let i = 0; i < items; i++) {
        put(r, 0, words(1, 5), { cls: titled ? "ind" : "l" })
        for (let c = 1; c < cols; c++) put(r, c, money(i === 0))
        r++
      }
      put(r, 0, `Total ${f.lorem.words(int(1, 2))}`, { cls: titled ? "ind tot" : "tot" })
      for (let c = 1; c < cols; c++) put(r, c, money(true), { cls: "totv" })
      r++
    }
  } else {
    const groups = kind === "booktabs" ? int(1, 3) : kind === "grid" && chance(0.4) ? int(1, 2) : chance(0.2) ? 1 : 0
    const perGroup = groups > 0 ? int(2, groups >= 3 ? 2 : 3) : 0
    const lead = kind === "grid" && chance(0.6) ? 2 : 1
    const flat = groups > 0 ? int(0, 1) : int(2, 5)
    cols = lead + groups * perGroup + flat
    headerRows = groups > 0 ? 2 : 1
    // Lead columns (row labels), then grouped metric columns, then ungrouped ones.
    const leadHeads = lead === 2 ? [pick(["Category", "Group", "Type", "Class"]), pick(["Item", "Name", "Model", "Method"])] : [pick(["Model", "Method", "Name", "Item", "Country", "Component", "Parameter"])]
    leadHeads.forEach((h, c) => put(0, c, h, { th: true, rowSpan: headerRows, cls: "l" }))
    const metric = () => pick(["P", "R", "F1", "Acc.", "BLEU", "mAP", "Time (s)", "Mean", "SD", "N", "Min", "Max", "Score", "Rate (%)"])
    for (let g = 0; g < groups; g++) {
      put(0, lead + g * perGroup, words(1, 2), { th: true, colSpan: perGroup, cls: "gh" })
      const used = new Set<string>()
      for (let k = 0; k < perGroup; k++) {
        let m = metric()
        while (used.has(m)) m = metric()
        used.add(m)
        put(1, lead + g * perGroup + k, m, { th: true })
      }
    }
    textCol = (kind === "grid" || kind === "plain" || kind === "zebra") && flat > 0 && chance(0.5) ? cols - 1 : -1
    for (let k = 0; k < flat; k++) {
      const c = lead + groups * perGroup + k
      put(0, c, c === textCol ? pick(["Description", "Notes", "Remarks", "Comment"]) : words(1, 2), { th: true, rowSpan: headerRows })
    }
    const bodyRows = int(3, textCol >= 0 ? 8 : 14)
    const decimals = int(0, 3)
    const numeric = (c: number) => c >= lead && c !== textCol
    let r = headerRows
    let spanLeft = 0
    for (let i = 0; i < bodyRows; i++, r++) {
      if (lead === 2) {
        if (spanLeft === 0) {
          const span = Math.min(int(1, 3), bodyRows - i)
          put(r, 0, words(1, 2), { rowSpan: span, cls: "l" })
          spanLeft = span
        }
        spanLeft--
      }
      put(r, lead - 1, lead === 2 ? words(1, 2) : kind === "booktabs" ? pick([f.hacker.abbreviation(), `${f.hacker.abbreviation()}-${int(1, 9)}`, words(1, 2)]) : words(1, 3), { cls: "l" })
      for (let c = lead; c < cols; c++) {
        if (c === textCol) put(r, c, cap(f.lorem.sentence(int(6, 16))), { cls: "txt" })
        else if (numeric(c)) put(r, c, chance(0.04) ? "–" : f.number.float({ min: 0, max: pick([1, 100, 1000]), fractionDigits: decimals }).toFixed(decimals), { cls: chance(0.1) ? "n b" : "n" })
      }
    }
  }

  // Cells of the truth grid, and the table's HTML.
  const rows = grid.length
  const cells: Array<SpecCell> = []
  const covered = new Set<string>()
  const trs: Array<string> = []
  for (let r = 0; r < rows; r++) {
    const tds: Array<string> = []
    for (let c = 0; c < cols; c++) {
      if (covered.has(`${r},${c}`)) continue
      const s = grid[r][c]
      if (s === undefined) { tds.push(r < headerRows ? "<th></th>" : "<td></td>"); continue }
      for (let dr = 0; dr < s.rowSpan; dr++) for (let dc = 0; dc < s.colSpan; dc++) covered.add(`${r + dr},${c + dc}`)
      if (s.text.length > 0) cells.push({ row: r, col: c, rowSpan: s.rowSpan, colSpan: s.colSpan, text: s.text })
      const tag = s.th ? "th" : "td"
      const span = `${s.rowSpan > 1 ? ` rowspan="${s.rowSpan}"` : ""}${s.colSpan > 1 ? ` colspan="${s.colSpan}"` : ""}`
      // A group head's rule is drawn under its text, a little short of the cell (booktabs' cmidrule).
      const text = s.cls === "gh" ? `<span>${esc(s.text)}</span>` : esc(s.text)
      tds.push(`<${tag}${span}${s.cls ? ` class="${s.cls}"` : ""}>${text}</${tag}>`)
    }
    trs.push(`<tr${r === headerRows - 1 ? ` class="lasthead"` : ""}>${tds.join("")}</tr>`)
  }
  const head = trs.slice(0, headerRows).join("")
  const body = trs.slice(headerRows).join("")
  const tables = int(1, 40)
  const captionText = `${pick(["Table", "TABLE", "Table"])} ${tables}${pick([":", ".", " –"])} ${esc(f.lorem.sentence(int(4, 12)))}`
  const caption = chance(0.7) ? `<p class="cap">${captionText}</p>` : ""
  const para = () => `<p>${esc(Array.from({ length: int(2, 5) }, () => f.lorem.sentence(int(8, 18))).join(" "))}</p>`
  const width = textCol >= 0 || chance(0.3) ? "width: 100%;" : ""
  const pad = `${int(2, 5)}px ${int(6, 14)}px`
  const rule = "1px solid #000"
  const styleOf: Record<TableSpec["kind"], string> = {
    financial: `td, th { border: none; } th.gh span { border-bottom: ${rule}; } tr.lasthead th { border-bottom: ${chance(0.6) ? rule : "none"}; } td.totv { border-top: ${chance(0.7) ? rule : "none"}; } td.ind { padding-left: 2em; } td.sec { font-weight: ${chance(0.5) ? "bold" : "normal"}; }`,
    booktabs: `table { border-top: 1.5px solid #000; border-bottom: 1.5px solid #000; } th.gh span { border-bottom: 0.6px solid #000; } thead { border-bottom: 0.8px solid #000; }`,
    grid: `td, th { border: ${rule}; }`,
    plain: `tr.lasthead th { border-bottom: ${chance(0.5) ? rule : "none"}; } th.gh span { border-bottom: ${chance(0.5) ? rule : "none"}; }`,
    zebra: `tbody tr:nth-child(odd) td { background: hsl(${int(0, 359)} 30% 92%); } thead th { background: hsl(${int(0, 359)} 40% 80%); }`
  }
  const css = `
    body { font-family: "${font}"; font-size: ${size}pt; margin: 0; padding: ${int(50, 80)}px ${int(60, 90)}px; line-height: 1.3; }
    p { margin: 0 0 ${int(6, 12)}px 0; text-align: justify; }
    p.cap { text-align: ${pick(["left", "center"])}; font-weight: ${chance(0.3) ? "bold" : "normal"}; margin-top: 10px; }
    table { border-collapse: collapse; ${width} margin: 6px auto 14px auto; font-size: ${Math.max(7, size - int(0, 1.5))}pt; }
    td, th { padding: ${pad}; vertical-align: ${pick(["top", "bottom", "middle"])}; }
    th { font-weight: ${chance(0.8) ? "bold" : "normal"}; text-align: center; }
    th.l, td.l, td.ind, td.sec, td.tot, td.txt { text-align: left; }
    td { text-align: ${kind === "financial" || chance(0.6) ? "right" : "center"}; }
    td.txt { max-width: ${int(140, 240)}px; }
    td.b { font-weight: bold; }
    th.gh span { display: block; margin: 0 4px; padding-bottom: 2px; }
    ${styleOf[kind]}`
  const table = `<table id="t"><thead>${head}</thead><tbody>${body}</tbody></table>`
  const html = `${para()}${caption}${table}${chance(0.8) ? para() : ""}`
  return { seed, kind, font, size, rows, cols, headerRows, cells, html, css }
}
