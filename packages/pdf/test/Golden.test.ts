/**
 * Golden tests: generated PDFs through the whole reader and the shared markdown writer, compared
 * with `fixtures/<case>/expected.md` and the block kinds in `expected.kinds.json`.
 * `UPDATE_FIXTURES=1` rewrites the expected files (refused under CI).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { goldenCases } from "./helpers/GoldenCases.ts"
import { readAll } from "./helpers/ReadAll.ts"

const update = process.env["UPDATE_FIXTURES"] === "1"
const fixtures = new URL("./fixtures/", import.meta.url)

describe("golden documents", () => {
  it("UPDATE_FIXTURES is never left on in CI", () => {
    assert.isFalse(update && process.env["CI"] === "true", "UPDATE_FIXTURES=1 must not be set in CI")
  })

  for (const [name, build] of Object.entries(goldenCases)) {
    it.effect(name, () =>
      Effect.gen(function*() {
        const bytes = yield* Effect.promise(build)
        const result = yield* readAll(bytes)
        const kinds = result.pages.map((p) => p.blocks.map((b) => b.kind))
        const dir = new URL(`${name}/`, fixtures)
        const mdFile = new URL("expected.md", dir)
        const kindsFile = new URL("expected.kinds.json", dir)
        if (update || !existsSync(mdFile)) {
          assert.isFalse(process.env["CI"] === "true", `missing fixture ${name} in CI`)
          mkdirSync(dir, { recursive: true })
          writeFileSync(mdFile, result.markdown + "\n")
          writeFileSync(kindsFile, JSON.stringify(kinds, null, 1) + "\n")
        }
        assert.strictEqual(result.markdown + "\n", readFileSync(mdFile, "utf8"))
        assert.deepStrictEqual(kinds, JSON.parse(readFileSync(kindsFile, "utf8")))
      }))
  }
})
