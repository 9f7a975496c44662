/**
 * Every format's HTML, written by core from the blocks a generated document's reader made: well
 * formed (parse5 reports no error), and compared with the golden file under
 * test/fixtures/golden/<case>.html (regenerate with UPDATE_FIXTURES=1).
 */
import { describe, expect, it } from "vitest"
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { fromHtml } from "hast-util-from-html"
import { writeHtml } from "@strata/core"
import { formatCases } from "./fixtures/Builders.ts"
import { readDocument } from "./fixtures/ReadDocument.ts"

const goldenDir = new URL("./fixtures/golden/", import.meta.url)
const update = process.env.UPDATE_FIXTURES === "1"

describe("golden HTML per format", () => {
  for (const c of formatCases) {
    it(c.name, async () => {
      const { html } = writeHtml((await readDocument(await c.build(), c.format)).pages)
      const errors: Array<string> = []
      fromHtml(html, {
        fragment: true,
        onerror: (error) => {
          errors.push(String(error.reason))
        }
      })
      expect(errors).toEqual([])
      const file = new URL(`${c.name}.html`, goldenDir)
      if (update) {
        writeFileSync(file, `${html}\n`)
        return
      }
      expect(existsSync(file), `golden file ${c.name}.html is missing (run with UPDATE_FIXTURES=1)`).toBe(true)
      expect(html).toBe(readFileSync(file, "utf8").replace(/\n$/, ""))
    })
  }

  it("is not left in update mode in CI", () => {
    expect(update && process.env.CI !== undefined).toBe(false)
  })
})
