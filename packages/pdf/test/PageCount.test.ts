/**
 * pdfPageCount: a PDF's page count read before the document is (what a replica queues on), and
 * `undefined` for what it cannot size cheaply: not a PDF, a password-protected one, a damaged one.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { readFileSync } from "node:fs"
import { pdfPageCount } from "../src/index.ts"
import { LOREM, makePdf } from "./helpers/MakePdf.ts"

const encrypted = readFileSync(new URL("./fixtures/encrypted/user.pdf", import.meta.url))

describe("pdfPageCount", () => {
  it.effect("counts the pages of a PDF, quickly", () =>
    Effect.gen(function*() {
      const pdf = yield* Effect.promise(() =>
        makePdf((b) => {
          for (let n = 0; n < 7; n++) {
            b.page((c) => {
              c.text(72, 72, `Page ${n + 1}`, 12)
              c.paragraph(72, 100, 400, LOREM, 10)
            })
          }
        }))
      const t0 = performance.now()
      assert.strictEqual(yield* pdfPageCount(pdf), 7)
      // A page tree's count, no page read: well under a read of one page (tens of ms).
      assert.isBelow(performance.now() - t0, 1_000)
    }))

  it.effect("is undefined for what it cannot size: not a PDF, password-protected, damaged", () =>
    Effect.gen(function*() {
      assert.isUndefined(yield* pdfPageCount(new TextEncoder().encode("name,qty\nbolt,3\n")))
      assert.isUndefined(yield* pdfPageCount(encrypted))
      assert.isUndefined(yield* pdfPageCount(new TextEncoder().encode("%PDF-1.7\nthis is not really a pdf")))
    }))
})
