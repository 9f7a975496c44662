/** The worksheet scanner: positions with and without `r`, prefixes, inline strings, entities, merges, broken cells. */
import { describe, expect, it } from "vitest"
import { scanSheet, type ScannedCell } from "../src/SheetScanner.ts"

const scan = (xml: string) => {
  const cells: Array<ScannedCell> = []
  const merges = scanSheet(xml, (cell) => cells.push(cell))
  return { cells, merges }
}

describe("scanSheet", () => {
  it("reads cells by reference, by position, with prefixes and inline strings", () => {
    const { cells, merges } = scan(`<x:worksheet xmlns:x="s"><x:cols><x:col min="1"/></x:cols><x:sheetData>
      <x:row r="2"><x:c r="B2" s="3"><x:f>A1*2</x:f><x:v>4</x:v></x:c><x:c t="s"><x:v>0</x:v></x:c><x:c r="E2"/></x:row>
      <x:row><x:c t="inlineStr"><x:is><x:r><x:t>a &amp; </x:t></x:r><x:r><x:t xml:space="preserve">b</x:t></x:r><x:rPh><x:t>ruby</x:t></x:rPh></x:is></x:c></x:row>
      </x:sheetData><x:mergeCells><x:mergeCell ref="A1:B1"/></x:mergeCells></x:worksheet>`)
    expect(cells).toEqual([
      { row: 1, col: 1, type: "n", style: 3, value: "4" },
      { row: 1, col: 2, type: "s", style: 0, value: "0" },
      { row: 2, col: 0, type: "inlineStr", style: 0, value: "a & b" }
    ])
    expect(merges).toEqual(["A1:B1"])
  })

  it("treats an unclosed cell as empty instead of swallowing the sheet", () => {
    const { cells } = scan(`<sheetData><row r="1"><c r="A1"><v>1</v><c r="B1"><v>2</v></c></row></sheetData>`)
    expect(cells.map((c) => c.value)).toEqual(["1"])
  })
})
