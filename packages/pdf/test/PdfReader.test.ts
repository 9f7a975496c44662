/**
 * The reader's contract on real PDFs: metadata and page counts, maxPages, the deadline, the `auto`
 * warning for pages without text, laziness of the page stream, and the DocumentError reasons for
 * encrypted, corrupt and empty input.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Stream } from "effect"
import { readFileSync } from "node:fs"
import { type DocumentError } from "@strata/core"
import { degrees } from "pdf-lib"
import { closePdf, openPdf, pdfReader, WINDOW } from "../src/index.ts"
import { LOREM, makePdf } from "./helpers/MakePdf.ts"
import { readAll } from "./helpers/ReadAll.ts"

const fixture = (name: string) => new Uint8Array(readFileSync(new URL(`./fixtures/encrypted/${name}`, import.meta.url)))

const reasonOf = (exit: Exit.Exit<unknown, DocumentError>): string | undefined => {
  if (Exit.isSuccess(exit)) return undefined
  const failure = exit.cause.reasons.find((r) => r._tag === "Fail")
  return failure !== undefined && failure._tag === "Fail" ? failure.error.reason._tag : "defect"
}

const pages = (n: number) => makePdf((b) => {
  for (let i = 1; i <= n; i++) b.page((c) => { c.text(72, 72, `Page ${i} heading`, 16, "bold"); c.paragraph(72, 100, 460, LOREM) })
}, { title: "Many Pages", author: "Ada Lovelace" })

describe("pdfReader", () => {
  it.effect("reports metadata and page counts, and honours maxPages", () =>
    Effect.gen(function*() {
      const bytes = yield* Effect.promise(() => pages(5))
      const all = yield* readAll(bytes)
      assert.strictEqual(all.info.numPages, 5)
      assert.strictEqual(all.info.totalPages, 5)
      assert.strictEqual(all.info.metadata["title"], "Many Pages")
      assert.strictEqual(all.info.metadata["author"], "Ada Lovelace")
      assert.strictEqual(all.info.metadata["creationDate"], "2024-01-02T03:04:05.000Z")
      assert.deepStrictEqual(all.pages.map((p) => p.pageNumber), [1, 2, 3, 4, 5])
      assert.isTrue(all.pages.every((p) => p.status === "ok" && p.width === 612 && p.height === 792))
      const capped = yield* readAll(bytes, { maxPages: 2 })
      assert.strictEqual(capped.info.numPages, 2)
      assert.strictEqual(capped.info.totalPages, 5)
      assert.strictEqual(capped.pages.length, 2)
      assert.include(capped.markdown, "Page 2 heading")
      assert.notInclude(capped.markdown, "Page 3 heading")
    }))

  it.effect("block boxes are normalised to the page", () =>
    Effect.gen(function*() {
      const all = yield* readAll(yield* Effect.promise(() => pages(1)))
      for (const block of all.pages[0].blocks) {
        assert.isNotNull(block.bbox)
        const [x0, y0, x1, y1] = block.bbox!
        assert.isTrue(x0 >= 0 && y0 >= 0 && x1 <= 1 && y1 <= 1 && x0 < x1 && y0 < y1, JSON.stringify(block.bbox))
        assert.strictEqual(block.source, "native_text")
      }
      // The heading is drawn at 72pt from the left and top of a 612 x 792 page.
      assert.approximately(all.pages[0].blocks[0].bbox![0], 72 / 612, 0.01)
    }))

  it.effect("the page stream is lazy: taking the first page reads only the look-ahead window", () =>
    Effect.gen(function*() {
      const bytes = yield* Effect.promise(() => pages(120))
      // Count the pages pdf.js is asked for, through the document class's prototype.
      const probe = yield* openPdf(bytes, Date.now() + 10_000)
      const proto = Object.getPrototypeOf(probe.doc) as { getPage: (n: number) => Promise<unknown> }
      yield* closePdf(probe)
      const original = proto.getPage
      let requested = 0
      proto.getPage = function(this: unknown, n: number) {
        requested++
        return original.call(this, n)
      }
      yield* Effect.gen(function*() {
        const result = yield* pdfReader.read({ bytes, format: "pdf", options: { mode: "fast", deadline: Date.now() + 30_000 } })
        const first = yield* Stream.runCollect(Stream.take(result.pages, 1))
        assert.strictEqual(first.length, 1)
        assert.include(first[0].blocks.map((b) => b.content).join("\n"), "Page 1 heading")
        assert.isAtMost(requested, WINDOW + 2)
        requested = 0
        const again = yield* pdfReader.read({ bytes, format: "pdf", options: { mode: "fast", deadline: Date.now() + 30_000 } })
        assert.strictEqual(yield* Stream.runCount(again.pages), 120)
        assert.strictEqual(requested, 120)
      }).pipe(Effect.ensuring(Effect.sync(() => {
        proto.getPage = original
      })))
    }))

  it.effect("a passed deadline fails with Timeout", () =>
    Effect.gen(function*() {
      const bytes = yield* Effect.promise(() => pages(1))
      const exit = yield* Effect.exit(readAll(bytes, { deadline: Date.now() - 1 }))
      assert.strictEqual(reasonOf(exit), "Timeout")
    }))

  it.effect("mode auto warns about a page with no text layer; fast says OCR was skipped", () =>
    Effect.gen(function*() {
      const bytes = yield* Effect.promise(() => makePdf((b) => {
        b.page((c) => c.paragraph(72, 72, 400, "A page with text."))
        b.page((c) => c.rect(100, 100, 300, 200))
      }))
      const auto = yield* readAll(bytes, { mode: "auto" })
      assert.isUndefined(auto.pages[0].diagnostics)
      assert.deepStrictEqual(auto.pages[1].diagnostics?.map((d) => [d.code, d.severity, d.page]), [["pdf_no_text_layer", "warning", 2]])
      const fast = yield* readAll(bytes, { mode: "fast" })
      assert.deepStrictEqual(fast.pages[1].diagnostics?.map((d) => [d.code, d.severity]), [["ocr_skipped", "warning"]])
    }))

  it.effect("rotated pages are read in their text's orientation; crop boxes frame the page", () =>
    Effect.gen(function*() {
      const bytes = yield* Effect.promise(() => makePdf((b) => {
        b.page((c) => {
          c.text(72, 72, "Rotated page heading", 18, "bold")
          c.paragraph(72, 110, 400, "First paragraph on the rotated page.")
          c.page.setRotation(degrees(90))
        })
        b.page((c) => {
          c.text(72, 72, "Outside the crop box", 11)
          c.text(150, 300, "Inside the crop box", 11)
          // Crop to x 100..400, y (from the bottom) 300..600.
          c.page.setCropBox(100, 300, 300, 300)
        })
      }))
      const all = yield* readAll(bytes)
      const [rotated, cropped] = all.pages
      // /Rotate 90 over unrotated content shows the text running down the page; it is read in its own orientation.
      assert.strictEqual(rotated.width, 612)
      assert.strictEqual(rotated.height, 792)
      assert.approximately(rotated.blocks[0].bbox![0], 72 / 612, 0.01)
      assert.deepStrictEqual(rotated.blocks.map((b) => b.content), ["# Rotated page heading", "First paragraph on the rotated page."])
      assert.strictEqual(cropped.width, 300)
      assert.strictEqual(cropped.height, 300)
      const inside = cropped.blocks.find((b) => b.content === "Inside the crop box")
      assert.isDefined(inside)
      // 150pt from the page's left edge is 50pt into the crop box; the line's top, 300pt below the page top
      // (y = 492 from the bottom), is 108pt below the crop box's top edge (y = 600).
      assert.approximately(inside!.bbox![0], 50 / 300, 0.02)
      assert.approximately(inside!.bbox![1], 108 / 300, 0.02)
      assert.isUndefined(cropped.blocks.find((b) => b.content.includes("Outside")))
    }))

  it.effect("a PDF with an empty user password opens", () =>
    Effect.gen(function*() {
      const all = yield* readAll(fixture("owner-only.pdf"))
      assert.include(all.markdown, "Secret quarterly numbers")
    }))

  it.effect("a password-protected PDF fails with Encrypted", () =>
    Effect.gen(function*() {
      assert.strictEqual(reasonOf(yield* Effect.exit(readAll(fixture("user.pdf")))), "Encrypted")
    }))

  it.effect("garbage, truncated and empty input fail with Corrupt", () =>
    Effect.gen(function*() {
      const good = yield* Effect.promise(() => pages(1))
      assert.strictEqual(reasonOf(yield* Effect.exit(readAll(new TextEncoder().encode("hello, this is not a pdf")))), "Corrupt")
      assert.strictEqual(reasonOf(yield* Effect.exit(readAll(new Uint8Array(0)))), "Corrupt")
      assert.strictEqual(reasonOf(yield* Effect.exit(readAll(good.slice(0, 40)))), "Corrupt")
    }))

  it.effect("the caller's bytes are not detached by pdf.js", () =>
    Effect.gen(function*() {
      const bytes = yield* Effect.promise(() => pages(1))
      yield* readAll(bytes)
      assert.isAbove(bytes.byteLength, 0)
      yield* readAll(bytes)
    }))
})
