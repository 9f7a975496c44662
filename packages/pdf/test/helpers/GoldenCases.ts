/** The documents of the golden tests: each case draws a PDF that exercises one layout problem. */
import { DUIS, LOREM, makePdf } from "./MakePdf.ts"

export const goldenCases: Record<string, () => Promise<Uint8Array>> = {
  "headings": () => makePdf((b) => b.page((c) => {
    let y = c.text(72, 60, "Annual Report on Widgets", 24, "bold")
    y = c.paragraph(72, y + 12, 460, LOREM)
    y = c.text(72, y + 14, "1 Introduction", 18, "bold")
    y = c.paragraph(72, y + 6, 460, DUIS)
    y = c.text(72, y + 12, "1.1 Background", 14, "bold")
    y = c.paragraph(72, y + 6, 460, LOREM)
    y = c.text(72, y + 12, "Scope of work", 11, "bold")
    c.paragraph(72, y + 4, 460, DUIS)
  })),
  "two-column": () => makePdf((b) => b.page((c) => {
    c.text(72, 60, "Columns Side By Side", 20, "bold")
    let left = c.paragraph(72, 110, 220, `Left one. ${LOREM}`)
    left = c.paragraph(72, left + 8, 220, `Left two. ${DUIS}`)
    let right = c.paragraph(320, 110, 220, `Right one. ${DUIS}`)
    right = c.paragraph(320, right + 8, 220, `Right two. ${LOREM}`)
    c.paragraph(72, Math.max(left, right) + 20, 468, "A closing paragraph that spans the full width of the page below both columns.")
  })),
  "column-continuation": () => makePdf((b) => b.page((c) => {
    // One paragraph broken by the column break in mid-sentence, then a second paragraph.
    const left = c.paragraph(72, 80, 220, `${LOREM} The sentence goes on in the`)
    const right = c.paragraph(320, 80, 220, "next column without a break, and ends here.")
    c.paragraph(320, right + 8, 220, DUIS)
    void left
  })),
  "page-continuation": () => makePdf((b) => {
    b.page((c) => {
      const y = c.text(72, 60, "Carried Over", 18, "bold")
      c.paragraph(72, y + 10, 460, `${LOREM} This sentence does not end on the first page but`)
      c.text(300, 750, "1", 9)
    })
    b.page((c) => {
      const y = c.paragraph(72, 60, 460, "carries on at the top of the second page, where it ends.")
      c.paragraph(72, y + 10, 460, DUIS)
      c.text(300, 750, "2", 9)
    })
  }),
  "table-over-pages": () => makePdf((b) => {
    const grid = (c: Parameters<Parameters<typeof b.page>[0]>[0], top: number, rows: Array<Array<string>>) => {
      const xs = [72, 200, 300]
      const ys = rows.map((_, r) => top + r * 20).concat(top + rows.length * 20)
      for (const x of xs) c.line(x, ys[0], x, ys[ys.length - 1])
      for (const y of ys) c.line(xs[0], y, xs[xs.length - 1], y)
      rows.forEach((row, r) => row.forEach((cell, k) => c.text(xs[k] + 4, ys[r] + 5, cell, 10, r === 0 ? "bold" : "regular")))
    }
    b.page((c) => {
      c.paragraph(72, 60, 460, "The inventory runs over two pages.")
      grid(c, 660, [["Part", "Count"], ["Bolt", "40"], ["Nut", "38"]])
    })
    b.page((c) => {
      grid(c, 60, [["Part", "Count"], ["Washer", "75"], ["Rivet", "12"]])
      c.paragraph(72, 160, 460, "End of the inventory.")
    })
  }),
  "ruled-table": () => makePdf((b) => b.page((c) => {
    c.text(72, 60, "Quarterly figures", 16, "bold")
    const xs = [72, 200, 300, 400]
    const ys = [100, 120, 140, 160, 180]
    for (const x of xs) c.line(x, ys[0], x, ys[ys.length - 1])
    for (const y of ys) c.line(xs[0], y, xs[xs.length - 1], y)
    const rows = [["Region", "Q1", "Q2"], ["North", "10", "12"], ["South", "7", "9"], ["East | West", "3", "4"]]
    rows.forEach((row, r) => row.forEach((cell, k) => c.text(xs[k] + 4, ys[r] + 5, cell, 10, r === 0 ? "bold" : "regular")))
    c.paragraph(72, 200, 460, "Text after the table continues as a normal paragraph.")
  })),
  "merged-cells": () => makePdf((b) => b.page((c) => {
    const xs = [72, 200, 300, 400]
    const ys = [100, 120, 140, 160]
    // The header cell "Sales" spans the two right columns: no vertical rule between them in row 0.
    for (const y of ys) c.line(xs[0], y, xs[3], y)
    c.line(xs[0], ys[0], xs[0], ys[3])
    c.line(xs[1], ys[0], xs[1], ys[3])
    c.line(xs[2], ys[1], xs[2], ys[3])
    c.line(xs[3], ys[0], xs[3], ys[3])
    c.text(76, 105, "Item", 10, "bold")
    c.text(204, 105, "Sales", 10, "bold")
    c.text(76, 125, "Apples", 10); c.text(204, 125, "5", 10); c.text(304, 125, "6", 10)
    c.text(76, 145, "Pears", 10); c.text(204, 145, "7", 10); c.text(304, 145, "8", 10)
  })),
  "unruled-table": () => makePdf((b) => b.page((c) => {
    c.paragraph(72, 60, 460, "The measurements below were taken at noon.")
    const rows = [["City", "Temp", "Rain", "Wind"], ["Oslo", "12", "3 mm", "4 m/s"], ["Lima", "24", "0 mm", "2 m/s"], ["Pune", "31", "9 mm", "6 m/s"], ["Kiev", "15", "1 mm", "5 m/s"]]
    rows.forEach((row, r) => row.forEach((cell, k) => c.text(72 + k * 110, 100 + r * 16, cell, 10, r === 0 ? "bold" : "regular")))
    c.paragraph(72, 200, 460, "All values are rounded.")
  })),
  "furniture": () => makePdf((b) => {
    for (let n = 1; n <= 4; n++) {
      b.page((c) => {
        c.text(72, 30, "ACME Corporation Internal Report", 9)
        c.text(300, 750, `${n}`, 9)
        let y = c.text(72, 80, `Chapter ${n}`, 16, "bold")
        y = c.paragraph(72, y + 6, 460, LOREM)
        c.paragraph(72, y + 8, 460, DUIS)
      })
    }
  }),
  "lists": () => makePdf((b) => b.page((c) => {
    let y = c.paragraph(72, 60, 460, "Things to bring:")
    for (const item of ["A tent that keeps the rain out", "Two litres of water", "A map of the area"]) {
      c.text(80, y + 4, "•", 11)
      y = c.paragraph(96, y + 4, 420, item)
    }
    c.text(96, y + 4, "-", 11)
    y = c.paragraph(110, y + 4, 400, "A nested remark about the map")
    y += 10
    ;["First step of the plan", "Second step of the plan"].forEach((item, i) => {
      y = c.paragraph(80, y + 4, 420, `${i + 1}. ${item}`)
    })
    c.paragraph(72, y + 12, 460, "That is all.")
  })),
  "table-of-contents": () => makePdf((b) => b.page((c) => {
    let y = c.text(72, 60, "Contents", 18, "bold") + 10
    const entries: Array<[number, string, string]> = [
      [0, "Preface", "vii"], [0, "Chapter 1. Getting started", "1"], [1, "1.1 Installing the tools", "2"],
      [1, "1.2 A first project with a title long enough to wrap onto a second line", "5"], [0, "Chapter 2. Going further", "9"]
    ]
    for (const [level, title, page] of entries) {
      const x = 72 + level * 18
      const words = title.split(" ")
      // a long title wraps before its leader, as typesetters do
      if (title.length > 50) {
        y = c.text(x, y, words.slice(0, 8).join(" "), 11)
        y = c.text(x, y, `${words.slice(8).join(" ")} ${". ".repeat(20)}${page}`, 11)
      } else {
        y = c.text(x, y, `${title} ${". ".repeat(Math.max(4, 40 - title.length))}${page}`, 11)
      }
    }
    c.paragraph(72, y + 16, 460, "The chapters can be read in any order, though the first explains the tools used later.")
  })),
  "code": () => makePdf((b) => b.page((c) => {
    let y = c.paragraph(72, 60, 460, "The function below adds two numbers.")
    y += 8
    const code = ["function add(a, b) {", "  const sum = a + b", "  return sum", "}"]
    for (const line of code) {
      const indent = line.length - line.trimStart().length
      y = c.text(72 + indent * 6, y, line.trimStart(), 10, "mono")
    }
    c.paragraph(72, y + 10, 460, "It returns the sum.")
  })),
  "hyphenation": () => makePdf((b) => b.page((c) => {
    let y = c.text(72, 60, "The committee approved the docu-", 11)
    y = c.text(72, y, "ment after a long and well-", 11)
    y = c.text(72, y, "known debate about state-of-the-", 11)
    y = c.text(72, y, "art methods and the final flow.", 11)
  })),
  "figure": () => makePdf((b) => b.page((c) => {
    // Two columns, a picture with labels on it in the left one, its caption below it; an icon by the title.
    c.image(72, 56, 16, 16)
    c.text(94, 58, "Figures In Columns", 18, "bold")
    let left = c.paragraph(72, 100, 220, `Left before. ${LOREM}`)
    c.image(72, left + 12, 220, 150)
    c.text(80, left + 20, "Axis label", 8)
    left = c.paragraph(72, left + 12 + 150 + 8, 220, "Figure 1: A picture in the left column.", 9)
    c.paragraph(72, left + 10, 220, `Left after. ${DUIS}`)
    c.paragraph(320, 100, 220, `Right one. ${DUIS} ${LOREM}`)
  }), { picture: true }),
  "vector-figure": () => makePdf((b) => b.page((c) => {
    // A bar chart drawn with paths (bars, axes, ticks) and its labels, captioned; a framed note
    // and a ruled table elsewhere on the page stay text and table.
    let y = c.text(72, 56, "Widget Sales", 18, "bold")
    y = c.paragraph(72, y + 10, 460, `Sales grew every quarter. ${LOREM}`)
    const top = y + 16, base = top + 150, x0 = 110
    c.line(x0, top, x0, base)
    c.line(x0, base, x0 + 300, base)
    const values = [40, 65, 80, 110, 95, 130]
    values.forEach((v, i) => {
      const x = x0 + 20 + i * 46
      c.fill(x, base - v, 26, v, 0.4)
      c.line(x + 13, base, x + 13, base + 4)
      c.text(x + 3, base + 8, `Q${(i % 4) + 1}/${i < 4 ? 23 : 24}`, 8)
    })
    for (const tick of [0, 50, 100]) {
      c.line(x0 - 4, base - tick, x0, base - tick)
      c.text(x0 - 22, base - tick - 4, String(tick), 8)
    }
    c.text(x0 + 110, top - 2, "Units sold", 9, "bold")
    y = c.text(72, base + 28, "Figure 1. Widgets sold per quarter.", 9)
    // A framed note: a box around a paragraph is not a picture.
    const noteTop = y + 14
    const noteEnd = c.paragraph(84, noteTop + 8, 436, `Note: ${DUIS}`, 10)
    c.rect(76, noteTop, 452, noteEnd - noteTop + 6)
    y = noteEnd + 20
    const xs = [72, 200, 300, 400]
    const ys = [y, y + 20, y + 40, y + 60]
    for (const x of xs) c.line(x, ys[0], x, ys[ys.length - 1])
    for (const row of ys) c.line(xs[0], row, xs[xs.length - 1], row)
    const rows = [["Model", "2023", "2024"], ["Basic", "120", "150"], ["Deluxe", "80", "140"]]
    rows.forEach((row, r) => row.forEach((cell, k) => c.text(xs[k] + 4, ys[r] + 5, cell, 10, r === 0 ? "bold" : "regular")))
    c.paragraph(72, ys[3] + 16, 460, `The table lists units per model. ${DUIS}`)
  })),
  "furniture-single-page": () => makePdf((b) => b.page((c) => {
    // One page: a running head, a revision line, a download stamp and a page number, found without repetition.
    c.text(72, 28, "Journal of Widget Studies", 8, "italic")
    c.text(430, 28, "Rev. 3, 2024-02-01", 8)
    let y = c.text(72, 80, "Measuring Widgets", 20, "bold")
    y = c.paragraph(72, y + 12, 460, LOREM)
    y = c.paragraph(72, y + 8, 460, DUIS)
    c.line(72, 700, 250, 700)
    c.text(72, 708, "1 Counted by hand in May 2023.", 8)
    c.text(72, 742, "Downloaded from https://widgets.example.org/paper/42 on 5 May 2023", 7)
    c.text(280, 760, "Page 1 of 1", 9)
  })),
  "header-levels": () => makePdf((b) => b.page((c) => {
    // A booktabs table whose group head ("Year Ended") spans the two year columns.
    c.paragraph(72, 60, 460, "Units sold by segment.")
    const xs = [76, 200, 330, 420]
    c.line(72, 100, 480, 100)
    c.text(xs[0], 106, "Operating", 10)
    c.text(352, 106, "Year Ended", 10)
    c.line(320, 120, 480, 120)
    c.text(xs[0], 124, "segment", 10)
    c.text(xs[1], 124, "Units", 10)
    c.text(xs[2], 124, "2023", 10)
    c.text(xs[3], 124, "2022", 10)
    c.line(72, 140, 480, 140)
    const rows = [["Widgets", "12", "1,200", "1,100"], ["Gadgets", "7", "800", "760"], ["Gizmos", "3", "300", "280"]]
    rows.forEach((row, r) => row.forEach((cell, k) => c.text(xs[k], 146 + r * 16, cell, 10)))
    c.line(72, 146 + rows.length * 16 + 2, 480, 146 + rows.length * 16 + 2)
  }))
}
