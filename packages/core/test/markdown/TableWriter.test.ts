/** The one table writer: pipe tables for regular grids, HTML where cells span, both text kinds, and what it leaves out. */
import { describe, expect, it } from "vitest"
import fc from "fast-check"
import remarkGfm from "remark-gfm"
import remarkParse from "remark-parse"
import { unified } from "unified"
import { type CellGrid, gridOfRows, writeTable } from "../../src/markdown/TableWriter.ts"
import { escapeHtml, escapeHtmlAttribute } from "../../src/markdown/HtmlEscape.ts"

const cell = (row: number, col: number, text: string, rowSpan = 1, colSpan = 1) => ({ row, col, text, rowSpan, colSpan })

describe("writeTable", () => {
  it("writes a regular grid as a GFM pipe table, the first row as header", () => {
    expect(writeTable(gridOfRows([["Name", "Qty"], ["a|b", ""], ["c"]]))).toBe(
      "| Name | Qty |\n| --- | --- |\n| a\\|b |  |\n| c |  |"
    )
  })

  it("keeps line breaks in a cell as <br>", () => {
    expect(writeTable(gridOfRows([["h"], [" one \n two "]]))).toBe("| h |\n| --- |\n| one<br>two |")
  })

  it("writes HTML with colspan and rowspan when a cell spans", () => {
    const grid: CellGrid = {
      rows: 3,
      cols: 2,
      cells: [cell(0, 0, "Item"), cell(0, 1, "Sales & <more>"), cell(1, 0, "Apples", 2, 1), cell(1, 1, "5"), cell(2, 1, "6\n7")]
    }
    expect(writeTable(grid)).toBe(
      "<table>\n<tr><th>Item</th><th>Sales &amp; &lt;more&gt;</th></tr>\n<tr><td rowspan=\"2\">Apples</td><td>5</td></tr>\n<tr><td>6<br>7</td></tr>\n</table>"
    )
    expect(writeTable({ rows: 2, cols: 2, cells: [cell(0, 0, "wide", 1, 2), cell(1, 0, "x"), cell(1, 1, "y")] })).toBe(
      "<table>\n<tr><th colspan=\"2\">wide</th></tr>\n<tr><td>x</td><td>y</td></tr>\n</table>"
    )
  })

  it("heads an HTML table with as many rows as headerRows says (a group head and the columns under it)", () => {
    const grid: CellGrid = {
      rows: 3,
      cols: 3,
      cells: [cell(0, 0, "Item", 2, 1), cell(0, 1, "Year Ended", 1, 2), cell(1, 1, "2023"), cell(1, 2, "2022"), cell(2, 0, "Bolts"), cell(2, 1, "5"), cell(2, 2, "4")]
    }
    expect(writeTable(grid, { headerRows: 2 })).toBe(
      "<table>\n<tr><th rowspan=\"2\">Item</th><th colspan=\"2\">Year Ended</th></tr>\n<tr><th>2023</th><th>2022</th></tr>\n<tr><td>Bolts</td><td>5</td><td>4</td></tr>\n</table>"
    )
    // One head row unless told otherwise.
    expect(writeTable(grid)).toContain("<tr><td>2023</td><td>2022</td></tr>")
  })

  it("reads plain text as text: whitespace collapses, backslashes stay visible in a pipe table", () => {
    expect(writeTable(gridOfRows([["C:\\dir", "a  b"], ["x|y", "1"]]), { text: "plain" })).toBe(
      "| C:\\\\dir | a b |\n| --- | --- |\n| x\\|y | 1 |"
    )
    expect(writeTable({ rows: 1, cols: 2, cells: [cell(0, 0, "C:\\dir  <x>\n", 1, 2)] }, { text: "plain" })).toBe(
      "<table>\n<tr><th colspan=\"2\">C:\\dir &lt;x&gt;</th></tr>\n</table>"
    )
  })

  it("writes nothing for a grid without text, and no line for a row where no cell starts", () => {
    expect(writeTable(gridOfRows([["", " "], ["\n"]]))).toBe("")
    expect(writeTable({ rows: 0, cols: 0, cells: [] })).toBe("")
    const covered: CellGrid = { rows: 3, cols: 2, cells: [cell(0, 0, "h"), cell(0, 1, "i"), cell(1, 0, "tall", 2, 2)] }
    expect(writeTable(covered)).toBe(
      "<table>\n<tr><th>h</th><th>i</th></tr>\n<tr><td colspan=\"2\" rowspan=\"2\">tall</td></tr>\n</table>"
    )
  })

  it("a pipe table parses back (GFM) to the same cells, whatever the text", () => {
    const text = fc.string({ maxLength: 12 }).map((s) => s.replace(/[\r\n`]/g, ""))
    fc.assert(fc.property(fc.array(fc.array(text, { minLength: 2, maxLength: 2 }), { minLength: 1, maxLength: 4 }), (rows) => {
      const markdown = writeTable(gridOfRows(rows), { text: "plain" })
      if (markdown === "") return
      const tree = unified().use(remarkParse).use(remarkGfm).parse(markdown)
      expect(tree.children[0]?.type).toBe("table")
      const table = tree.children[0] as { children: Array<{ children: Array<unknown> }> }
      expect(table.children.length).toBe(rows.length)
      for (const row of table.children) expect(row.children.length).toBe(2)
    }))
  })
})

describe("HtmlEscape", () => {
  it("escapes text and attribute values, and returns clean text as it is", () => {
    expect(escapeHtml("a < b && c > d")).toBe("a &lt; b &amp;&amp; c &gt; d")
    expect(escapeHtml("\"quoted\"")).toBe("\"quoted\"")
    expect(escapeHtmlAttribute("say \"hi\" & <go>")).toBe("say &quot;hi&quot; &amp; <go>")
    const clean = "nothing to do"
    expect(escapeHtml(clean)).toBe(clean)
  })
})
