/**
 * The store across processes. SQLite: three processes migrating one new file at once apply each
 * migration once; two processes charging one team at once are killed with SIGKILL mid-write, and
 * the reopened file passes `PRAGMA integrity_check` with every charge a process reported as
 * committed still there and the balance matching the ledger. Postgres: two stores on one database
 * (two layer builds, as two replicas would have) built at once, agreeing on credits, idempotency
 * and the cache.
 */
import { assert, describe, it } from "@effect/vitest"
import { Store } from "@strata/core"
import { Effect, Layer, Option } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { join } from "node:path"
import { DatabaseSync } from "node:sqlite"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll } from "vitest"
import { layerSqlite, migrations } from "../src/index.ts"
import { backends, setup, teardown, tempDir } from "./support/Backends.ts"

beforeAll(setup, 120_000)
afterAll(teardown)

const writer = fileURLToPath(new URL("./support/Writer.ts", import.meta.url))

interface Child {
  readonly process: ChildProcess
  readonly lines: Array<string>
  readonly exited: Promise<number | null>
  readonly stderr: () => string
}

const startWriter = (args: ReadonlyArray<string>): Child => {
  const child = spawn(process.execPath, ["--conditions=@strata/source", writer, ...args], { stdio: ["ignore", "pipe", "pipe"] })
  const lines: Array<string> = []
  let pending = ""
  let stderr = ""
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    pending += chunk
    const parts = pending.split("\n")
    pending = parts.pop() ?? ""
    lines.push(...parts)
  })
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)))
  return { process: child, lines, exited, stderr: () => stderr }
}

const waitFor = async (check: () => boolean, what: string, timeoutMs = 60_000) => {
  const start = Date.now()
  while (!check()) {
    if (Date.now() - start > timeoutMs) throw new Error(`Timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/** A store on the file the children write (the same cache bound as theirs). */
const sqliteAt = (filename: string) => Layer.fresh(layerSqlite({ filename, cacheMaxBytes: 100 * 1024 }))

const useStore = <A, E>(body: (store: Store["Service"]) => Effect.Effect<A, E>) =>
  Effect.gen(function*() {
    return yield* body(yield* Store)
  })

describe("Store on sqlite: processes", () => {
  it.live("three processes migrating one new file at once apply each migration once", () =>
    Effect.promise(async () => {
      const filename = join(tempDir(), "strata.db")
      const children = [0, 1, 2].map(() => startWriter([filename, "open"]))
      const codes = await Promise.all(children.map((child) => child.exited))
      assert.deepStrictEqual(codes, [0, 0, 0], children.map((child) => child.stderr()).join("\n"))
      const db = new DatabaseSync(filename)
      const rows = db.prepare("SELECT id, count(*) AS n FROM strata_migrations GROUP BY id").all()
      db.close()
      assert.deepStrictEqual(rows.map((row) => [row.id, row.n]), migrations.map((migration) => [migration.id, 1]))
    }))

  it.live("a store opening while another process holds the file's write lock past the busy timeout waits for it", () =>
    Effect.gen(function*() {
      const filename = join(tempDir(), "strata.db")
      yield* useStore((store) => store.setTeam("acme", { credits: 5 })).pipe(Effect.provide(sqliteAt(filename)))
      // Another process's long write: the lock held 7 s, past the 5 s busy timeout of one attempt.
      const holder = startWriter([filename, "hold", "7000"])
      yield* Effect.promise(() => waitFor(() => holder.lines.includes("locked"), "the lock to be held"))
      const started = Date.now()
      const team = yield* useStore((store) => store.getTeam("acme")).pipe(Effect.provide(sqliteAt(filename)))
      assert.strictEqual(Option.getOrThrow(team).credits, 5)
      assert.isAtLeast(Date.now() - started, 5000)
      assert.strictEqual(yield* Effect.promise(() => holder.exited), 0)
    }), { timeout: 60_000 })

  it.live("kill -9 of two processes writing: the file is intact and no committed charge is lost", () =>
    Effect.gen(function*() {
      const filename = join(tempDir(), "strata.db")
      const initial = 1_000_000
      yield* useStore((store) => store.setTeam("acme", { credits: initial })).pipe(
        Effect.provide(sqliteAt(filename))
      )
      const reported = yield* Effect.promise(async () => {
        const children = [startWriter([filename, "write", "a"]), startWriter([filename, "write", "b"])]
        await waitFor(() => children.every((child) => child.lines.length > 150), "both writers to commit 150 charges")
        for (const child of children) child.process.kill("SIGKILL")
        await Promise.all(children.map((child) => child.exited))
        return children.flatMap((child) => child.lines.filter((line) => line !== "ready"))
      })
      const db = new DatabaseSync(filename)
      const integrity = db.prepare("PRAGMA integrity_check").all()
      const ledger = new Set(db.prepare("SELECT charge_id FROM credit_ledger").all().map((row) => String(row.charge_id)))
      const credits = Number(db.prepare("SELECT credits FROM teams WHERE id = 'acme'").get()?.credits)
      const usage = Number(db.prepare("SELECT bytes FROM cache_usage").get()?.bytes)
      const sizes = Number(db.prepare("SELECT coalesce(sum(size), 0) AS s FROM cache_entries").get()?.s)
      db.close()
      assert.deepStrictEqual(integrity, [{ integrity_check: "ok" }])
      assert.isAbove(reported.length, 300)
      const lost = reported.filter((chargeId) => !ledger.has(chargeId))
      assert.deepStrictEqual(lost, [])
      // Every charge in the ledger took its credit, none twice (a charge may have committed after its id was last printed).
      assert.strictEqual(credits, initial - ledger.size)
      assert.strictEqual(usage, sizes)
      // The store opens again and goes on.
      const after = yield* useStore((store) =>
        Effect.gen(function*() {
          const replay = yield* store.charge({ teamId: "acme", chargeId: reported[0], amount: 1 })
          const fresh = yield* store.charge({ teamId: "acme", chargeId: "after", amount: 1 })
          return { replay, fresh }
        })
      ).pipe(Effect.provide(sqliteAt(filename)))
      assert.isTrue(after.replay.replayed)
      assert.strictEqual(after.fresh.balance, initial - ledger.size - 1)
    }))
})

describe("Store on pg: two replicas", () => {
  it.live("two stores on one database, built at once, agree on credits, idempotency and the cache", () =>
    Effect.gen(function*() {
      const database = backends[1].database()
      const [one, two] = yield* Effect.all([Layer.build(database.open()), Layer.build(database.open())], { concurrency: 2 }).pipe(
        Effect.map((contexts) => contexts.map((context) => Layer.succeedContext(context)))
      )
      const a = yield* useStore(Effect.succeed).pipe(Effect.provide(one))
      const b = yield* useStore(Effect.succeed).pipe(Effect.provide(two))
      yield* a.setTeam("acme", { credits: 10 })
      // 16 charges, half through each replica, all at once: 10 go through.
      const results = yield* Effect.forEach(
        Array.from({ length: 16 }, (_, i) => i),
        (i) => Effect.result((i % 2 === 0 ? a : b).charge({ teamId: "acme", chargeId: `job-${i}`, amount: 1 })),
        { concurrency: 16 }
      )
      assert.strictEqual(results.filter((result) => result._tag === "Success").length, 10)
      assert.strictEqual(yield* a.balance("acme"), 0)
      assert.strictEqual(yield* b.balance("acme"), 0)
      // A charge made through one replica is a replay through the other.
      yield* b.setTeam("acme", { credits: 5 })
      assert.isFalse((yield* a.charge({ teamId: "acme", chargeId: "x", amount: 2 })).replayed)
      assert.deepStrictEqual(yield* b.charge({ teamId: "acme", chargeId: "x", amount: 2 }), {
        chargeId: "x",
        teamId: "acme",
        amount: 2,
        balance: 3,
        replayed: true
      })
      // Idempotency: claimed on one, running on the other; completed on one, replayed by the other.
      const claim = { teamId: "acme", requestId: "r1", paramsHash: "h", deadline: Date.now() + 60_000 }
      const claims = yield* Effect.all([a.beginRequest(claim), b.beginRequest(claim)], { concurrency: 2 })
      assert.deepStrictEqual(claims.map((state) => state._tag).sort(), ["New", "Running"])
      yield* a.completeRequest({ teamId: "acme", requestId: "r1", response: "{}" })
      assert.deepStrictEqual(yield* b.beginRequest(claim), { _tag: "Done", response: "{}" })
      assert.deepStrictEqual(yield* b.beginRequest({ ...claim, paramsHash: "other" }), { _tag: "Conflict" })
      // The cache: written by one, read by the other.
      yield* a.cachePut({ key: "k", url: "u", finalUrl: "u", status: 200, headers: {}, body: new Uint8Array([1, 2]), fetchedAt: 5 })
      assert.deepStrictEqual(Array.from(Option.getOrThrow(yield* b.cacheGet("k")).body), [1, 2])
      assert.strictEqual(yield* a.cacheBytes, yield* b.cacheBytes)
    }))
})
