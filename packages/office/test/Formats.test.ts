/**
 * Every format end to end: a generated document of each kind is read and its markdown compared
 * with the golden file under test/fixtures/golden/ (regenerate with UPDATE_FIXTURES=1), plus
 * the specific behaviours each reader promises.
 */
import { describe, expect, it } from "vitest"
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { detectFormat } from "@strata/core"
import { asMacroEnabled, buildBinaryWorkbook, buildCsv, buildDocx, buildEpub, buildOdp, buildOds, buildOdt, buildPptx, buildPptxChart, buildRtf, buildXlsx, type FormatCase, formatCases } from "./fixtures/Builders.ts"
import { readDocument } from "./fixtures/ReadDocument.ts"

const goldenDir = new URL("./fixtures/golden/", import.meta.url)
const update = process.env.UPDATE_FIXTURES === "1"

const golden = (name: string, markdown: string): void => {
  const file = new URL(`${name}.md`, goldenDir)
  if (update) {
    mkdirSync(goldenDir, { recursive: true })
    writeFileSync(file, `${markdown}\n`)
    return
  }
  expect(existsSync(file), `golden file ${name}.md is missing (run with UPDATE_FIXTURES=1)`).toBe(true)
  expect(markdown).toBe(readFileSync(file, "utf8").replace(/\n$/, ""))
}

const cases: ReadonlyArray<FormatCase> = [...formatCases, { name: "xlsb", format: "xlsb", build: () => buildBinaryWorkbook("xlsb") }]

describe("golden markdown per format", () => {
  for (const c of cases) {
    it(c.name, async () => {
      const out = await readDocument(await c.build(), c.format)
      golden(c.name, out.markdown)
    })
  }

  it("macro-enabled twins (docm, xlsm, pptm) are detected as such and read like their plain forms", async () => {
    const twins = [
      ["docx", "docm", await buildDocx()],
      ["xlsx", "xlsm", await buildXlsx()],
      ["pptx", "pptm", await buildPptx()]
    ] as const
    for (const [plain, macro, bytes] of twins) {
      const enabled = asMacroEnabled(bytes, plain)
      expect(detectFormat({ bytes: enabled, fileName: `x.${plain}` })).toBe(macro)
      expect(detectFormat({ bytes, fileName: `x.${macro}` })).toBe(plain)
      expect((await readDocument(enabled, macro)).markdown).toBe((await readDocument(bytes, plain)).markdown)
    }
  })

  it("is not left in update mode in CI", () => {
    expect(update && process.env.CI !== undefined).toBe(false)
  })
})

describe("word processing", () => {
  it("docx: title, headings, emphasis, links, nested and numbered lists, spans, notes, furniture", async () => {
    const out = await readDocument(await buildDocx(), "docx")
    const md = out.markdown
    expect(md).toMatch(/^# Harbour Survey\n\n## Weather\n\n/)
    expect(md).toContain("### Equipment")
    expect(md).toContain("## Part I: Appendix")
    expect(md).toContain("- [x] Lamp checked\n- [ ] Radio checked")
    expect(md).toContain("The keepers recorded **unusually calm** weather at *Pelican Point*.[^1]")
    expect(md).toContain("[the report](https://example.com/report)")
    expect(md).toContain("- Lamp\n  - Lens\n- Radio")
    expect(md).toContain("1. Check the lamp\n   1. Clean the lens\n2. Log the visit")
    expect(md).toContain(`<td colspan="2">Morag Sinclair</td>`)
    expect(md).toContain(`<td rowspan="2">Gannet Rock</td>`)
    expect(md).toContain("[^1]: Measured at noon.")
    // Headers and footers are furniture: in the blocks, not in the markdown.
    expect(md).not.toContain("Confidential header")
    const kinds = out.pages[0].blocks.map((b) => b.kind)
    expect(kinds).toContain("page_header")
    expect(kinds).toContain("page_footer")
    expect(out.info.metadata.title).toBe("Harbour Survey")
    expect(out.info.metadata.author).toBe("Fixture Builder")
  })

  it("odt: title style, outline headings, spans, notes, lists and spans in tables", async () => {
    const md = (await readDocument(buildOdt(), "odt")).markdown
    expect(md).toMatch(/^# Harbour Survey\n\n## Weather/)
    expect(md).toContain("**unusually calm** weather at *Pelican Point*.[^1]")
    expect(md).toContain("- Lamp\n   - Lens\n- Radio")
    expect(md).toContain("1. Check the lamp\n2. Log the visit")
    expect(md).toContain(`<td colspan="2">Morag Sinclair</td>`)
    expect(md).toContain("[^1]: Measured at noon.")
  })

  it("rtf: code page bytes, unicode escapes, styles, fields, lists, tables, skipped destinations", async () => {
    const out = await readDocument(buildRtf(), "rtf")
    expect(out.markdown).toContain("# Weather")
    expect(out.markdown).toContain("**unusually calm** weather at *Pelican Point*, café crème.[^1]")
    expect(out.markdown).toContain("[the report](https://example.com/report)")
    expect(out.markdown).toContain("- Lamp\n1. Check the lamp")
    expect(out.markdown).toContain("| Pelican Point | Morag Sinclair |")
    expect(out.markdown).not.toMatch(/Confidential|89504e|Times New Roman/)
    expect(out.info.metadata).toMatchObject({ title: "Harbour Survey", author: "Fixture Builder" })
  })
})

describe("spreadsheets", () => {
  it("xlsx: one page per sheet, values as displayed, merged title, separate regions", async () => {
    const out = await readDocument(await buildXlsx(), "xlsx")
    expect(out.pages.map((p) => p.blocks[0].content)).toEqual(["## Visitors", "## Notes"])
    const md = out.markdown
    expect(md).toContain("Harbour visitors 2024")
    expect(md).toContain("| Pelican Point | 2024-01-15 | 25.6% | $1,234.50 |")
    expect(md).toContain("| Gannet Rock | 2024-02-29 | 50.0% | -$20.00 |")
    // The total row is apart from the table (empty rows) and its parts apart from each other (empty columns).
    expect(md).toContain("Total\n\n1,214.50")
    expect(md).toContain("Checked by Morag Sinclair")
    expect(md).toContain("TRUE")
    expect(md).toMatch(/> \*\*Comment \([^)]*B2\):\*\* Verified twice/)
  })

  it("xlsx: maxPages caps the sheets and reports the total", async () => {
    const out = await readDocument(await buildXlsx(), "xlsx", { maxPages: 1 })
    expect(out.pages).toHaveLength(1)
    expect(out.info.numPages).toBe(1)
    expect(out.info.totalPages).toBe(2)
  })

  it("xls, xlsb and Excel 2003 XML: formatted through SheetJS", async () => {
    for (const [bookType, format] of [["biff8", "xls"], ["xlsb", "xlsb"], ["xlml", "xls"]] as const) {
      const bytes = buildBinaryWorkbook(bookType)
      expect(detectFormat({ bytes, fileName: `book.${bookType === "xlml" ? "xml" : format}` })).toBe(format)
      const md = (await readDocument(bytes, format)).markdown
      expect(md).toContain("## Counts")
      expect(md).toContain("| Pelican Point | 4821 | 25% |")
      expect(md).toContain("## Second")
    }
  })

  it("ods: spans, displayed text, huge repeats not materialised", async () => {
    const started = performance.now()
    const out = await readDocument(buildOds(), "ods")
    expect(performance.now() - started).toBeLessThan(5_000)
    expect(out.markdown).toContain("Harbour visitors")
    expect(out.markdown).toContain("| Pelican Point | 25% |")
    expect(out.pages).toHaveLength(2)
  })

  it("csv: dialect (semicolon), quotes, doubled quotes, quoted newlines, short rows, Windows-1252", async () => {
    const md = (await readDocument(buildCsv(), "csv")).markdown
    expect(md.split("\n")[0]).toBe("| Station | Keeper | Note |")
    expect(md).toContain("| Pelican Point | Morag Sinclair | said \"calm\"; windless |")
    expect(md).toContain("| Gannet Rock | Declan Horgan | two<br>lines |")
    expect(md).toContain("| Osprey Head | Tamsin Pellow |  |")
    const latin = new Uint8Array(Buffer.from("Name,City\nJos\xe9,S\xe3o Paulo\n", "latin1"))
    expect((await readDocument(latin, "csv")).markdown).toContain("| José | São Paulo |")
    const tabs = new TextEncoder().encode("a\tb\tc\n1\t2\t3\n")
    expect((await readDocument(tabs, "csv")).markdown).toBe("| a | b | c |\n| --- | --- | --- |\n| 1 | 2 | 3 |")
  })
})

describe("presentations and books", () => {
  it("pptx: slide titles, reading order by position, tables with spans, bullets, notes", async () => {
    const out = await readDocument(await buildPptx(), "pptx")
    expect(out.pages).toHaveLength(2)
    const first = out.pages[0].blocks.map((b) => b.content)
    expect(first[0]).toBe("## Harbour Survey")
    expect(first.indexOf("Top text comes first")).toBeLessThan(first.indexOf("Left column text"))
    expect(first.indexOf("Left column text")).toBeLessThan(first.indexOf("Right column text"))
    expect(out.markdown).toContain("> **Notes:**\n> Remember to thank Morag.")
    expect(out.markdown).toContain(`<td colspan="2">Pelican Point and Gannet Rock</td>`)
    expect(out.markdown).toContain("- First point\n- Second point")
  })

  it("pptx: chart data becomes a caption and a table", async () => {
    const out = await readDocument(await buildPptxChart(), "pptx")
    expect(out.markdown).toContain("Duck counts")
    expect(out.markdown).toContain("| | Freshwater Ducks |".replace("| |", "|  |"))
    expect(out.markdown).toContain("| 2019 | 120 |")
    expect(out.markdown).toContain("| 2020 | 135 |")
  })

  it("odp: frames by position, title first, notes", async () => {
    const out = await readDocument(buildOdp(), "odp")
    expect(out.pages[0].blocks.map((b) => b.content)).toEqual(["## Harbour Survey", "Upper text", "Lower text", "> **Notes:**\n> Thank Morag."])
    expect(out.pages[1].blocks[0].content).toBe("## Second")
  })

  it("epub: chapters in spine order through the HTML stages, book metadata, no scripts", async () => {
    const out = await readDocument(buildEpub(), "epub")
    expect(out.pages).toHaveLength(2)
    expect(out.markdown.indexOf("Chapter One")).toBeLessThan(out.markdown.indexOf("Chapter Two"))
    expect(out.markdown).toContain("**unusually calm**")
    expect(out.markdown).toMatch(/\| Gannet Rock \| 3907 \|/)
    expect(out.markdown).not.toContain("alert")
    expect(out.info.metadata).toMatchObject({ title: "Harbour Stories", author: "Morag Sinclair, Declan Horgan", language: "en" })
  })
})
