/**
 * `strata catalog` on a real SQLite store under a temp STRATA_DATA_DIR: an administrator accepts
 * a built-in provider's terms (its version known) and an operator's provider's (version given),
 * lists them, and the usage errors.
 */
import { Store } from "@strata/core"
import { layerSqlite, sqliteFileIn } from "@strata/store"
import { Effect } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { main } from "../src/index.ts"

let dataDir = ""
let previous: string | undefined

beforeAll(() => {
  previous = process.env.STRATA_DATA_DIR
  dataDir = mkdtempSync(join(tmpdir(), "strata-cli-catalog-"))
  process.env.STRATA_DATA_DIR = dataDir
})

afterAll(() => {
  if (previous === undefined) delete process.env.STRATA_DATA_DIR
  else process.env.STRATA_DATA_DIR = previous
})

const run = async (...argv: Array<string>) => {
  const out: Array<string> = []
  const err: Array<string> = []
  const code = await main(argv, { out: (text) => out.push(text), err: (text) => err.push(text) })
  return { code, out: out.join("\n"), err: err.join("\n") }
}

describe("strata catalog", () => {
  it("accepts a provider's terms for a team, once, and lists them", async () => {
    expect((await run("teams", "set", "harbour")).code).toBe(0)
    const wiki = await run("catalog", "accept-terms", "wikipedia", "--team", "harbour", "--by", "ada", "--json")
    expect(wiki.code, wiki.err).toBe(0)
    expect(JSON.parse(wiki.out)).toMatchObject({ teamId: "harbour", provider: "wikipedia", version: "cc-by-sa-4.0", acceptedBy: "ada" })
    const tides = await run("catalog", "accept-terms", "tides", "--team", "harbour", "--version", "2026-01")
    expect(tides.code, tides.err).toBe(0)
    expect(tides.out).toContain("Terms of tides (version 2026-01) accepted for team harbour")
    const listed = await run("catalog", "terms", "--team", "harbour", "--json")
    expect(JSON.parse(listed.out).map((t: { provider: string }) => t.provider)).toEqual(["tides", "wikipedia"])
    const stored = await Effect.runPromise(
      Effect.flatMap(Store, (store) => store.acceptedTerms("harbour")).pipe(
        Effect.provide(layerSqlite({ filename: sqliteFileIn(dataDir), cacheMaxBytes: 1024 }))
      )
    )
    expect(stored.find((t) => t.provider === "wikipedia")?.acceptedBy).toBe("ada")
    expect((await run("catalog", "terms", "--team", "nobody")).out).toContain("No provider terms accepted")
    expect((await run("catalog", "providers")).out).toContain("wikipedia  terms cc-by-sa-4.0")
  })

  it("refuses what it cannot record", async () => {
    expect((await run("catalog")).code).toBe(2)
    expect((await run("catalog", "accept-terms", "wikipedia")).code).toBe(2)
    const unknownVersion = await run("catalog", "accept-terms", "tides", "--team", "harbour")
    expect(unknownVersion.code).toBe(2)
    expect(unknownVersion.err).toContain("--version")
    const noTeam = await run("catalog", "accept-terms", "wikipedia", "--team", "nobody")
    expect(noTeam.code).toBe(1)
    expect(noTeam.err).toContain("No team \"nobody\"")
    expect((await run("catalog", "accept", "wikipedia")).code).toBe(2)
  })
})
