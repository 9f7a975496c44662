/**
 * Figures from painted images on generated PDFs: a picture becomes a `figure` block in reading
 * order with its caption right after it and its labels out of the body; icons, page backgrounds
 * and scans are not figures.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { DUIS, LOREM, makePdf } from "./helpers/MakePdf.ts"
import { readAll } from "./helpers/ReadAll.ts"

const kinds = (blocks: ReadonlyArray<{ kind: string }>) => blocks.map((b) => b.kind)

describe("figures", () => {
  it.effect("a picture is a figure block in place, its caption right after it, its labels out of the body", () =>
    Effect.gen(function*() {
      const bytes = yield* Effect.promise(() => makePdf((b) => {
        // Two pages: the second one reads with fonts already known, so only the picture gate opens its operator list.
        for (const n of [1, 2]) {
          b.page((c) => {
            let y = c.text(72, 60, `Widget Report ${n}`, 18, "bold")
            y = c.paragraph(72, y + 10, 460, `Before the picture. ${LOREM}`)
            c.image(150, y + 16, 300, 200)
            // Diagram text painted over the picture: an axis label and a legend.
            c.text(160, y + 30, "Units sold", 9)
            c.text(380, y + 190, "2024", 9)
            y = c.text(150, y + 16 + 200 + 8, `Figure ${n}: Widget sales by year.`, 10)
            c.paragraph(72, y + 14, 460, `After the picture. ${DUIS}`)
          })
        }
      }, { picture: true }))
      const all = yield* readAll(bytes)
      for (const [i, page] of all.pages.entries()) {
        assert.deepStrictEqual(kinds(page.blocks), ["title", "text", "figure", "caption", "text"].map((k) => i === 1 && k === "title" ? "section_header" : k))
        const figure = page.blocks[2]
        assert.strictEqual(figure.content, "<!-- image -->")
        // Drawn at x 150..450, top 60+~22+~80 .. +200 on a 612 x 792 page.
        const [x0, y0, x1, y1] = figure.bbox!
        assert.approximately(x0, 150 / 612, 0.005)
        assert.approximately(x1, 450 / 612, 0.005)
        assert.approximately(y1 - y0, 200 / 792, 0.005)
        assert.strictEqual(page.blocks[3].content, `Figure ${i + 1}: Widget sales by year.`)
        assert.isTrue(page.blocks[1].content.startsWith("Before the picture. Lorem ipsum"))
        assert.isTrue(page.blocks[1].content.endsWith("commodo consequat."))
        assert.isTrue(page.blocks[4].content.startsWith("After the picture. Duis aute"))
        assert.isTrue(page.blocks[4].content.endsWith("id est laborum."))
      }
      assert.notInclude(all.markdown, "Units sold")
      assert.notInclude(all.markdown, "2024")
      assert.include(all.markdown, "consequat.\n\n<!-- image -->\n\nFigure 1: Widget sales by year.\n\nAfter the picture.")
    }))

  it.effect("a picture in one column beside a full column of text is found on a later page too", () =>
    Effect.gen(function*() {
      const bytes = yield* Effect.promise(() => makePdf((b) => {
        for (const n of [1, 2]) {
          b.page((c) => {
            let left = c.paragraph(72, 60, 220, `Left ${n}. ${LOREM}`)
            c.image(72, left + 12, 220, 180)
            left = c.text(72, left + 12 + 180 + 8, `Figure ${n}: Beside the other column.`, 9)
            c.paragraph(72, left + 10, 220, DUIS)
            let right = 60
            for (let k = 0; k < 5; k++) right = c.paragraph(320, right + 6, 220, k % 2 === 0 ? DUIS : LOREM)
          })
        }
      }, { picture: true }))
      const all = yield* readAll(bytes)
      for (const page of all.pages) {
        assert.deepStrictEqual(kinds(page.blocks).slice(0, 4), ["text", "figure", "caption", "text"])
        assert.strictEqual(page.blocks[2].content, `Figure ${page.pageNumber}: Beside the other column.`)
      }
    }))

  it.effect("a caption set above its picture is written after it", () =>
    Effect.gen(function*() {
      const bytes = yield* Effect.promise(() => makePdf((b) => b.page((c) => {
        let y = c.paragraph(72, 60, 460, LOREM)
        y = c.text(72, y + 16, "Fig. 3. A chart of the numbers.", 10)
        c.image(72, y + 6, 300, 180)
        c.paragraph(72, y + 6 + 180 + 16, 460, DUIS)
      }), { picture: true }))
      const all = yield* readAll(bytes)
      assert.deepStrictEqual(kinds(all.pages[0].blocks), ["text", "figure", "caption", "text"])
      assert.strictEqual(all.pages[0].blocks[2].content, "Fig. 3. A chart of the numbers.")
    }))

  it.effect("a tiny icon beside the text is not a figure and takes no text", () =>
    Effect.gen(function*() {
      const bytes = yield* Effect.promise(() => makePdf((b) => b.page((c) => {
        c.image(72, 60, 14, 14)
        c.text(92, 60, "Note with an icon", 11)
        c.paragraph(72, 84, 460, LOREM)
        // Room below the text, so that the page's operator list is read.
        c.paragraph(72, 500, 460, DUIS)
      }), { picture: true }))
      const all = yield* readAll(bytes)
      assert.notInclude(kinds(all.pages[0].blocks), "figure")
      assert.include(all.markdown, "Note with an icon")
      assert.include(all.markdown, "Lorem ipsum")
    }))

  it.effect("a background behind the text and a page that is one picture are not figures", () =>
    Effect.gen(function*() {
      const bytes = yield* Effect.promise(() => makePdf((b) => {
        b.page((c) => {
          c.image(0, 0, 612, 792)
          c.paragraph(72, 72, 460, LOREM)
        })
        b.page((c) => {
          // A tinted panel: a picture mostly covered by text is a background, its text stays.
          c.image(60, 100, 480, 90)
          c.paragraph(72, 110, 456, `${LOREM} ${DUIS}`)
          c.paragraph(72, 400, 460, DUIS)
        })
        b.page((c) => c.image(0, 0, 612, 792))
      }, { picture: true }))
      const all = yield* readAll(bytes)
      for (const page of all.pages) assert.notInclude(kinds(page.blocks), "figure")
      assert.include(all.pages[0].blocks[0].content, "Lorem ipsum")
      assert.include(all.pages[1].blocks[0].content, "Lorem ipsum")
      assert.strictEqual(all.pages[2].blocks.length, 0)
    }))
})
