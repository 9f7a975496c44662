/**
 * Tables whose column headers have levels: a group head over several columns becomes a cell with
 * `colspan` in an HTML table (the markdown keeps the relation between a value and its heads), the
 * headers beside it span the header rows, and a header wrapped over two lines stays one cell. Built
 * as real PDFs: a booktabs table (rules across, a short rule under the group head) and a table with
 * vertical rules that stop under the group head.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { LOREM, makePdf } from "./helpers/MakePdf.ts"
import { readAll } from "./helpers/ReadAll.ts"

const tableOf = (pages: ReadonlyArray<{ blocks: ReadonlyArray<{ kind: string; table?: unknown; content: string }> }>) =>
  pages.flatMap((p) => p.blocks).find((b) => b.kind === "table")

describe("multi-level table headers", () => {
  it.effect("booktabs: 'Year Ended' over two year columns, a header wrapped over two lines", () =>
    Effect.gen(function*() {
      const bytes = yield* Effect.promise(() => makePdf((b) => b.page((c) => {
        c.paragraph(72, 60, 460, LOREM)
        const xs = [76, 200, 330, 420]
        c.line(72, 200, 480, 200)
        c.text(xs[0], 206, "Operating", 10)
        c.text(352, 206, "Year Ended", 10)
        c.line(320, 220, 480, 220)
        c.text(xs[0], 224, "segment", 10)
        c.text(xs[1], 224, "Units", 10)
        c.text(xs[2], 224, "2023", 10)
        c.text(xs[3], 224, "2022", 10)
        c.line(72, 240, 480, 240)
        const rows = [["Widgets", "12", "1,200", "1,100"], ["Gadgets", "7", "800", "760"], ["Gizmos", "3", "300", "280"]]
        rows.forEach((row, r) => row.forEach((cell, k) => c.text(xs[k], 246 + r * 16, cell, 10)))
        c.line(72, 246 + rows.length * 16 + 2, 480, 246 + rows.length * 16 + 2)
      })))
      const { pages, markdown } = yield* readAll(bytes)
      const table = tableOf(pages)
      assert.isDefined(table)
      assert.include(table!.content, "<table>")
      assert.include(table!.content, `<th colspan="2">Year Ended</th>`)
      assert.include(table!.content, `<th rowspan="2">Operating segment</th>`)
      assert.include(table!.content, `<th rowspan="2">Units</th>`)
      // The year columns stay apart under their head, and every body row keeps four cells.
      assert.match(table!.content, /<t[dh]>2023<\/t[dh]><t[dh]>2022<\/t[dh]>/)
      assert.include(table!.content, "<tr><td>Gadgets</td><td>7</td><td>800</td><td>760</td></tr>")
      assert.strictEqual((table!.table as { headerRows: number }).headerRows, 2)
      assert.include(markdown, `<th colspan="2">Year Ended</th>`)
    }))

  it.effect("vertical rules that stop under a group head make it span its columns", () =>
    Effect.gen(function*() {
      const bytes = yield* Effect.promise(() => makePdf((b) => b.page((c) => {
        const xs = [72, 160, 230, 300, 370]
        const top = 100, mid = 118, head = 136
        const rows = [["OTSL", "0.965", "0.934", "0.955"], ["HTML", "0.969", "0.927", "0.955"], ["Both", "0.952", "0.909", "0.938"]]
        const bottom = head + rows.length * 18
        // No rules between the body rows: the rows come from the text, as in most papers' tables.
        for (const y of [top, head, bottom]) c.line(xs[0], y, xs[4], y)
        c.line(xs[1], mid, xs[4], mid)
        // The outer rules and the one after the first column run the whole height; the others start under the head.
        for (const x of [xs[0], xs[1], xs[4]]) c.line(x, top, x, bottom)
        for (const x of [xs[2], xs[3]]) c.line(x, mid, x, bottom)
        c.text(xs[0] + 4, 112, "Language", 10)
        c.text(222, 104, "TEDs", 10)
        c.text(xs[1] + 4, 122, "simple", 10)
        c.text(xs[2] + 4, 122, "complex", 10)
        c.text(xs[3] + 4, 122, "all", 10)
        rows.forEach((row, r) => row.forEach((cell, k) => c.text(xs[k] + 4, head + r * 18 + 4, cell, 10)))
      })))
      const { pages } = yield* readAll(bytes)
      const table = tableOf(pages)
      assert.isDefined(table)
      assert.include(table!.content, `<th colspan="3">TEDs</th>`)
      assert.include(table!.content, `<th rowspan="2">Language</th>`)
      assert.match(table!.content, /<t[dh]>simple<\/t[dh]><t[dh]>complex<\/t[dh]><t[dh]>all<\/t[dh]>/)
      assert.include(table!.content, "<tr><td>HTML</td><td>0.969</td><td>0.927</td><td>0.955</td></tr>")
    }))

  it.effect("unruled: a head alone on its row over the year columns; a title over the whole table stays a paragraph", () =>
    Effect.gen(function*() {
      const bytes = yield* Effect.promise(() => makePdf((b) => b.page((c) => {
        const xs = [72, 300, 400]
        c.text(310, 100, "Year Ended December 31,", 10)
        c.text(xs[0], 114, "(in millions)", 10)
        c.text(xs[1] + 10, 114, "2023", 10)
        c.text(xs[2] + 10, 114, "2022", 10)
        const rows = [["Revenue", "1,200", "1,100"], ["Cost of sales", "700", "650"], ["Net income", "500", "450"]]
        rows.forEach((row, r) => row.forEach((cell, k) => c.text(k === 0 ? xs[0] : xs[k] + 10, 128 + r * 14, cell, 10)))
        // A second table under a title that runs over all its columns.
        c.text(200, 300, "Widgets sold by town and year", 10)
        c.text(xs[0], 314, "Town", 10)
        c.text(xs[1] + 10, 314, "2023", 10)
        c.text(xs[2] + 10, 314, "2022", 10)
        const towns = [["Northfield", "112", "98"], ["Southby", "87", "90"], ["Eastwick", "45", "51"]]
        towns.forEach((row, r) => row.forEach((cell, k) => c.text(k === 0 ? xs[0] : xs[k] + 10, 328 + r * 14, cell, 10)))
      })))
      const { pages, markdown } = yield* readAll(bytes)
      const tables = pages.flatMap((p) => p.blocks).filter((b) => b.kind === "table")
      assert.strictEqual(tables.length, 2)
      assert.include(tables[0].content, `<th colspan="2">Year Ended December 31,</th>`)
      assert.include(tables[0].content, `<th rowspan="2">(in millions)</th>`)
      assert.include(tables[0].content, "<tr><td>Cost of sales</td><td>700</td><td>650</td></tr>")
      assert.notInclude(tables[1].content, "Widgets sold")
      assert.include(markdown, "Widgets sold by town and year")
    }))

  it.effect("unruled: a head beside the row labels' heading on the table's first row", () =>
    Effect.gen(function*() {
      const bytes = yield* Effect.promise(() => makePdf((b) => b.page((c) => {
        const xs = [72, 300, 380, 460]
        c.text(xs[0], 100, "(in millions)", 10)
        // Centred over the three year columns.
        c.text(342, 100, "Year Ended December 31,", 10)
        c.text(xs[1] + 10, 114, "2023", 10)
        c.text(xs[2] + 10, 114, "2022", 10)
        c.text(xs[3] + 10, 114, "2021", 10)
        const rows = [["Revenue", "1,200", "1,100", "900"], ["Cost of sales", "700", "650", "600"], ["Net income", "500", "450", "300"]]
        rows.forEach((row, r) => row.forEach((cell, k) => c.text(k === 0 ? xs[0] : xs[k] + 10, 128 + r * 14, cell, 10)))
      })))
      const { pages } = yield* readAll(bytes)
      const table = tableOf(pages)
      assert.isDefined(table)
      assert.include(table!.content, `<th colspan="3">Year Ended December 31,</th>`)
      assert.include(table!.content, `<th rowspan="2">(in millions)</th>`)
      assert.match(table!.content, /<t[dh]>2023<\/t[dh]><t[dh]>2022<\/t[dh]><t[dh]>2021<\/t[dh]>/)
      assert.include(table!.content, "<tr><td>Net income</td><td>500</td><td>450</td><td>300</td></tr>")
    }))

  for (const ruled of [false, true]) {
    it.effect(`a row label wrapped over two lines is one cell (${ruled ? "booktabs" : "unruled"})`, () =>
      Effect.gen(function*() {
        const bytes = yield* Effect.promise(() => makePdf((b) => b.page((c) => {
          const xs = [72, 300, 380]
          if (ruled) { c.line(70, 96, 440, 96); c.line(70, 112, 440, 112) }
          const cells = (top: number, label: string, a: string, b2: string) => {
            c.text(xs[0], top, label, 10); c.text(xs[1] + 10, top, a, 10); c.text(xs[2] + 10, top, b2, 10)
          }
          cells(100, "Item", "2023", "2022")
          cells(116, "Revenue", "1,200", "1,100")
          c.text(xs[0], 130, "Property, plant and", 10)
          cells(142, "equipment, net", "700", "650")
          cells(158, "Net income", "500", "450")
          cells(172, "Other", "5", "4")
          if (ruled) c.line(70, 186, 440, 186)
        })))
        const { pages } = yield* readAll(bytes)
        const table = tableOf(pages)
        assert.isDefined(table)
        assert.include(table!.content, "| Property, plant and equipment, net | 700 | 650 |")
        assert.include(table!.content, "| Item | 2023 | 2022 |")
        assert.strictEqual((table!.table as { rows: number }).rows, 5)
      }))
  }

  it.effect("a description wrapped onto a line of its own in a later column stays in its cell", () =>
    Effect.gen(function*() {
      const bytes = yield* Effect.promise(() => makePdf((b) => b.page((c) => {
        const xs = [72, 180, 280]
        c.line(70, 96, 560, 96)
        c.text(xs[0], 100, "Column name", 10); c.text(xs[1], 100, "Data type", 10); c.text(xs[2], 100, "Description", 10)
        c.line(70, 112, 560, 112)
        c.text(xs[0], 116, "FUNCTION_ID", 10); c.text(xs[1], 116, "VARCHAR(30)", 10); c.text(xs[2], 116, "ID of the function.", 10)
        c.text(xs[0], 130, "USER_NAME", 10); c.text(xs[1], 130, "VARCHAR(10)", 10); c.text(xs[2], 130, "Name of the user profile that has a usage setting", 10)
        c.text(xs[2], 142, "for this function.", 10)
        c.text(xs[0], 156, "USAGE", 10); c.text(xs[1], 156, "VARCHAR(7)", 10); c.text(xs[2], 156, "Usage setting.", 10)
        c.line(70, 170, 560, 170)
      })))
      const { pages } = yield* readAll(bytes)
      const table = tableOf(pages)
      assert.isDefined(table)
      assert.include(table!.content, "| USER_NAME | VARCHAR(10) | Name of the user profile that has a usage setting for this function. |")
      assert.strictEqual((table!.table as { rows: number }).rows, 4)
    }))

  it.effect("rules between groups of lines: wrapped prose between two rules is one row, rows of figures stay rows", () =>
    Effect.gen(function*() {
      const bytes = yield* Effect.promise(() => makePdf((b) => b.page((c) => {
        const xs = [72, 170, 360, 550]
        const frame = (top: number, bottom: number, rules: Array<number>) => {
          for (const y of [top, ...rules, bottom]) c.line(xs[0], y, xs[3], y)
          for (const x of xs) c.line(x, top, x, bottom)
        }
        // Prose wrapped over several lines in each cell; the row label wrapped too.
        frame(80, 200, [100, 150])
        c.text(xs[0] + 4, 86, "Topic", 10); c.text(xs[1] + 4, 86, "Before", 10); c.text(xs[2] + 4, 86, "After", 10)
        c.text(xs[0] + 4, 106, "Scope of", 10); c.text(xs[0] + 4, 118, "the rules", 10)
        c.text(xs[1] + 4, 106, "Diseases carried by water", 10); c.text(xs[1] + 4, 118, "or by food, likely to spread", 10); c.text(xs[1] + 4, 130, "in groups", 10)
        c.text(xs[2] + 4, 106, "Diseases that need a high", 10); c.text(xs[2] + 4, 118, "level of isolation", 10)
        c.text(xs[0] + 4, 156, "Listed", 10); c.text(xs[1] + 4, 156, "Cholera, typhoid and", 10); c.text(xs[1] + 4, 168, "four others", 10)
        c.text(xs[2] + 4, 156, "Ebola, plague and", 10); c.text(xs[2] + 4, 168, "fifteen others", 10)
        // Figures in rows, with rules between sections only.
        frame(500, 600, [516, 556])
        c.text(xs[0] + 4, 504, "Item", 10); c.text(xs[1] + 4, 504, "2023", 10); c.text(xs[2] + 4, 504, "2022", 10)
        const rows = [["Bolts", "12", "10"], ["Nuts", "7", "9"], ["Washers", "3", "4"], ["Rivets", "8", "6"]]
        rows.forEach((row, r) => row.forEach((cell, k) => c.text(xs[k] + 4, 520 + r * 10 + (r >= 2 ? 16 : 0), cell, 9)))
      })))
      const { pages } = yield* readAll(bytes)
      const tables = pages.flatMap((p) => p.blocks).filter((b) => b.kind === "table")
      assert.strictEqual(tables.length, 2)
      assert.include(tables[0].content, "| Scope of the rules | Diseases carried by water or by food, likely to spread in groups | Diseases that need a high level of isolation |")
      assert.include(tables[0].content, "| Listed | Cholera, typhoid and four others | Ebola, plague and fifteen others |")
      assert.strictEqual((tables[0].table as { rows: number }).rows, 3)
      assert.include(tables[1].content, "| Nuts | 7 | 9 |")
      assert.strictEqual((tables[1].table as { rows: number }).rows, 5)
    }))

  it.effect("a column ruled only beside it: its values stay in their rows, not one cell spanning them", () =>
    Effect.gen(function*() {
      const bytes = yield* Effect.promise(() => makePdf((b) => b.page((c) => {
        const xs = [72, 250, 450]
        const ys = [100, 120, 140, 160, 180]
        // Rules across the top and the bottom; between the rows, only under the labels.
        c.line(xs[0], ys[0], xs[2], ys[0]); c.line(xs[0], ys[4], xs[2], ys[4])
        for (const y of ys.slice(1, 4)) c.line(xs[0], y, xs[1], y)
        for (const x of xs) c.line(x, ys[0], x, ys[4])
        const rows = [["Date of filing", "2024-09-19"], ["Date of listing", "2024-10-04"], ["Committee session", "436"], ["Adviser", "Armon Brokerage"]]
        rows.forEach(([label, value], r) => { c.text(xs[0] + 4, ys[r] + 5, label, 10); c.text(xs[1] + 4, ys[r] + 5, value, 10) })
      })))
      const { pages } = yield* readAll(bytes)
      const table = tableOf(pages)
      assert.isDefined(table)
      assert.include(table!.content, "| Date of listing | 2024-10-04 |")
      assert.include(table!.content, "| Adviser | Armon Brokerage |")
      assert.strictEqual((table!.table as { rows: number }).rows, 4)
    }))

  it.effect("a ruled cell spanning rows keeps its paragraph whole, though its lines stand level with the rows beside it", () =>
    Effect.gen(function*() {
      const bytes = yield* Effect.promise(() => makePdf((b) => b.page((c) => {
        const xs = [72, 200, 330, 520]
        const ys = [100, 114, 128, 142, 156]
        c.line(xs[0], ys[0], xs[3], ys[0]); c.line(xs[0], ys[4], xs[3], ys[4])
        // Rules between the rows in the first two columns only: the third column's cell spans them.
        for (const y of ys.slice(1, 4)) c.line(xs[0], y, xs[2], y)
        for (const x of xs) c.line(x, ys[0], x, ys[4])
        const rows = [["Alpha", "12"], ["Beta", "7"], ["Gamma", "3"], ["Delta", "9"]]
        rows.forEach(([name, n], r) => { c.text(xs[0] + 4, ys[r] + 2, name, 10); c.text(xs[1] + 4, ys[r] + 2, n, 10) })
        c.text(xs[2] + 4, ys[0] + 2, "All four were measured on the", 10)
        c.text(xs[2] + 4, ys[0] + 13, "same bench, in one session, and", 10)
        c.text(xs[2] + 4, ys[0] + 24, "their order is the order of runs.", 10)
      })))
      const { pages } = yield* readAll(bytes)
      const table = tableOf(pages)
      assert.isDefined(table)
      assert.match(table!.content, /<t[dh] rowspan="4">All four were measured on the same bench, in one session, and their order is the order of runs\.<\/t[dh]>/)
      assert.include(table!.content, "<td>Gamma</td><td>3</td>")
    }))

  it.effect("rules between groups of rows: a value centred beside its group's rows spans them (\\multirow)", () =>
    Effect.gen(function*() {
      const bytes = yield* Effect.promise(() => makePdf((b) => b.page((c) => {
        const xs = [72, 140, 210, 300, 380]
        const rules = [100, 116, 148, 180, 212]
        for (const y of rules) c.line(xs[0], y, xs[4], y)
        for (const x of xs) c.line(x, rules[0], x, rules[rules.length - 1])
        c.text(xs[0] + 4, 104, "Layers", 10); c.text(xs[1] + 4, 104, "Heads", 10); c.text(xs[2] + 4, 104, "Format", 10); c.text(xs[3] + 4, 104, "Score", 10)
        const groups = [["6", "8", "0.965", "0.969"], ["4", "8", "0.938", "0.952"], ["2", "4", "0.923", "0.945"]]
        groups.forEach(([layers, heads, a, bScore], g) => {
          const top = rules[g + 1]
          // The group's values centred between its two rows.
          c.text(xs[0] + 4, top + 11, layers, 10); c.text(xs[1] + 4, top + 11, heads, 10)
          c.text(xs[2] + 4, top + 4, "OTSL", 10); c.text(xs[3] + 4, top + 4, a, 10)
          c.text(xs[2] + 4, top + 18, "HTML", 10); c.text(xs[3] + 4, top + 18, bScore, 10)
        })
      })))
      const { pages } = yield* readAll(bytes)
      const table = tableOf(pages)
      assert.isDefined(table)
      assert.include(table!.content, `<tr><td rowspan="2">6</td><td rowspan="2">8</td><td>OTSL</td><td>0.965</td></tr>`)
      assert.include(table!.content, `<tr><td>HTML</td><td>0.969</td></tr>`)
      assert.include(table!.content, `<tr><td rowspan="2">2</td><td rowspan="2">4</td><td>OTSL</td><td>0.923</td></tr>`)
      assert.strictEqual((table!.table as { rows: number }).rows, 7)
    }))
})

