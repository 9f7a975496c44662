/**
 * Two justified columns one em apart, as LaTeX sets them (`\columnsep` 10 pt beside 10 pt type):
 * the gap between a left line's last word and the right line's first is narrower than the
 * widest word space a line may have, and the columns' lines were read as one. The page's empty
 * band down the gutter tells them apart; a page of a line or two has such bands between any
 * two words, and keeps its lines whole.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { PDFDocument, StandardFonts } from "pdf-lib"
import { makePdf } from "./helpers/MakePdf.ts"
import { readAll } from "./helpers/ReadAll.ts"

const SIZE = 10

const words = (side: string, n: number) =>
  Array.from({ length: n }, (_, i) => `${side}${i} reads like plain prose, with commas, and goes on to the end of its column.`).join(" ").split(" ")

/** Lines of `text` filling `width` exactly: each line's spaces stretched so that its last word ends at the column's edge. */
const justify = async (text: ReadonlyArray<string>, width: number): Promise<Array<Array<{ word: string; dx: number }>>> => {
  const font = await (await PDFDocument.create()).embedFont(StandardFonts.Helvetica)
  const w = (s: string) => font.widthOfTextAtSize(s, SIZE)
  const space = w(" ")
  const lines: Array<Array<string>> = [[]]
  for (const word of text) {
    const line = lines[lines.length - 1]!
    const next = [...line, word]
    if (line.length > 0 && next.reduce((a, x) => a + w(x), 0) + space * (next.length - 1) > width) lines.push([word])
    else line.push(word)
  }
  return lines.map((line, index) => {
    const ink = line.reduce((a, x) => a + w(x), 0)
    const gap = index === lines.length - 1 || line.length === 1 ? space : (width - ink) / (line.length - 1)
    let x = 0
    return line.map((word) => {
      const placed = { word, dx: x }
      x += w(word) + gap
      return placed
    })
  })
}

describe("columns one em apart", () => {
  it.effect("reads the left column whole before the right one", () =>
    Effect.gen(function*() {
      const column = 235
      const left = yield* Effect.promise(() => justify(words("Left", 14), column))
      const right = yield* Effect.promise(() => justify(words("Right", 14), column))
      const bytes = yield* Effect.promise(() =>
        makePdf((b) =>
          b.page((c) => {
            for (const [lines, x0] of [[left, 66], [right, 66 + column + SIZE]] as const) {
              lines.forEach((line, row) => {
                for (const { word, dx } of line) c.text(x0 + dx, 72 + row * 12, word, SIZE)
              })
            }
          })
        )
      )
      const { markdown } = yield* readAll(bytes)
      const text = markdown.replace(/\s+/g, " ")
      assert.include(text, "Left13 reads like plain prose")
      assert.isBelow(text.indexOf("Left13 reads"), text.indexOf("Right0 reads"), "the whole left column comes first")
      assert.notMatch(text, /Left\d+ [^.]*Right\d+ reads/, "no left line is joined to a right one")
    }))

  it.effect("keeps a one-line page's line whole, however wide its word spaces", () =>
    Effect.gen(function*() {
      const font = yield* Effect.promise(async () => (await PDFDocument.create()).embedFont(StandardFonts.Helvetica))
      const bytes = yield* Effect.promise(() =>
        makePdf((b) =>
          b.page((c) => {
            let x = 72
            for (const word of ["Page", "one", "of", "the", "installed", "package"]) {
              c.text(x, 72, word, SIZE)
              x += font.widthOfTextAtSize(word, SIZE) + 0.8 * SIZE
            }
          })
        )
      )
      const { pages } = yield* readAll(bytes)
      const texts = pages[0]!.blocks.map((block) => block.text)
      assert.deepStrictEqual(texts, ["Page one of the installed package"])
    }))
})
