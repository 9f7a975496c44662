/**
 * `strata keys` and `strata teams` on a real SQLite store under a temp STRATA_DATA_DIR: a team set
 * and changed flag by flag, a key created (printed once, found by the store), listed and revoked,
 * and the usage errors.
 */
import { Store } from "@strata/core"
import { layerSqlite, sqliteFileIn } from "@strata/store"
import { Effect, Option } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { main } from "../src/index.ts"

let dataDir = ""
let previous: string | undefined

beforeAll(() => {
  previous = process.env.STRATA_DATA_DIR
  dataDir = mkdtempSync(join(tmpdir(), "strata-cli-accounts-"))
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

const withStore = <A, E>(body: (store: Store["Service"]) => Effect.Effect<A, E>) =>
  Effect.runPromise(
    Effect.gen(function*() {
      return yield* body(yield* Store)
    }).pipe(Effect.provide(layerSqlite({ filename: sqliteFileIn(dataDir), cacheMaxBytes: 1024 })))
  )

describe("strata teams", () => {
  it("sets a team, then changes only the flags given; none removes a limit", async () => {
    const set = await run("teams", "set", "acme", "--credits", "100", "--rate-limit", "60", "--concurrency", "4", "--zdr", "on", "--catalog", "off", "--audit", "stdout", "--json")
    expect(set.code, set.err).toBe(0)
    expect(JSON.parse(set.out)).toMatchObject({ id: "acme", credits: 100, rateLimit: 60, concurrency: 4, zdr: true, catalog: false, auditSink: "stdout" })
    const changed = await run("teams", "set", "acme", "--rate-limit", "none", "--audit", "/tmp/audit.jsonl")
    expect(changed.code, changed.err).toBe(0)
    expect(changed.out).toContain("rate limit   none")
    expect(changed.out).toContain("credits      100")
    expect(changed.out).toContain("audit        /tmp/audit.jsonl")
    const team = Option.getOrThrow(await withStore((store) => store.getTeam("acme")))
    expect(team).toMatchObject({ credits: 100, rateLimit: undefined, concurrency: 4, zdr: true, catalog: false })
    expect((await run("teams", "show", "acme")).out).toContain("team acme")
    expect((await run("teams", "list", "--json")).out).toContain("\"acme\"")
  })

  it("refuses bad values with the usage and exit code 2", async () => {
    for (const argv of [["--credits", "-1"], ["--zdr", "maybe"], ["--concurrency", "1.5"], ["--audit", " "]]) {
      const result = await run("teams", "set", "acme", ...argv)
      expect(result.code, argv.join(" ")).toBe(2)
      expect(result.err).toContain("strata teams set")
    }
    expect((await run("teams", "set")).code).toBe(2)
    expect((await run("teams", "show", "ghost")).code).toBe(1)
  })
})

describe("strata keys", () => {
  it("creates a key shown once, lists it, and revokes it", async () => {
    await run("teams", "set", "beta", "--credits", "5")
    const created = await run("keys", "create", "--team", "beta")
    expect(created.code, created.err).toBe(0)
    const key = created.out.split("\n")[0]
    expect(key).toMatch(/^sk-strata-[0-9a-f]{12}_[A-Za-z0-9_-]{43}$/)
    const id = /Key (key_[0-9a-f]{12}) for team beta/.exec(created.out)?.[1]
    expect(id).toBeDefined()
    const found = await withStore((store) => store.authenticate(key))
    expect(Option.getOrThrow(found).team.id).toBe("beta")
    const listed = await run("keys", "list", "--team", "beta")
    expect(listed.out).toContain(id)
    expect(listed.out).not.toContain(key)
    const revoked = await run("keys", "revoke", id!)
    expect(revoked.code, revoked.err).toBe(0)
    expect(Option.isNone(await withStore((store) => store.authenticate(key)))).toBe(true)
    expect((await run("keys", "list", "--team", "beta")).out).toContain("revoked")
  })

  it("refuses a key for a team that does not exist, an unknown key id, and a missing --team", async () => {
    const ghost = await run("keys", "create", "--team", "ghost")
    expect(ghost.code).toBe(1)
    expect(ghost.err).toContain("strata teams set ghost")
    expect((await run("keys", "revoke", "key_000000000000")).code).toBe(1)
    expect((await run("keys", "create")).code).toBe(2)
    expect((await run("keys")).code).toBe(2)
  })
})
