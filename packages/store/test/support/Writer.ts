/**
 * A child process for the crash and two-process tests: opens the SQLite store at argv[2] (running
 * the migrations), then with mode `write` charges 1 credit to team `acme` under ids
 * `{prefix}-{n}` and caches a page, forever, printing each charge id only after its transaction
 * committed. The parent kills it with SIGKILL somewhere in the middle. Mode `open` only opens the
 * store (migrations) and exits. Mode `hold MS` takes the file's write lock (`BEGIN IMMEDIATE`),
 * prints `locked`, holds it MS milliseconds and exits without opening the store.
 */
import { Store } from "@strata/core"
import { Effect } from "effect"
import { DatabaseSync } from "node:sqlite"
import { layerSqlite } from "../../src/index.ts"

const [filename, mode, prefix = "w"] = process.argv.slice(2)

if (mode === "hold") {
  const db = new DatabaseSync(filename!)
  db.exec("BEGIN IMMEDIATE")
  process.stdout.write("locked\n")
  setTimeout(() => {
    db.exec("COMMIT")
    db.close()
    process.exit(0)
  }, Number(prefix))
}

const program = Effect.gen(function*() {
  const store = yield* Store
  if (mode !== "write") return
  process.stdout.write("ready\n")
  const body = new Uint8Array(4096).fill(7)
  for (let n = 0; ; n++) {
    const chargeId = `${prefix}-${n}`
    yield* store.charge({ teamId: "acme", chargeId, amount: 1 })
    yield* store.cachePut({
      key: `${prefix}-${n % 50}`,
      url: "https://example.com/",
      finalUrl: "https://example.com/",
      status: 200,
      headers: {},
      body,
      fetchedAt: n
    })
    process.stdout.write(`${chargeId}\n`)
  }
})

if (mode !== "hold") Effect.runPromise(program.pipe(Effect.provide(layerSqlite({ filename, cacheMaxBytes: 100 * 1024 })))).then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(`${String(error)}\n`)
    process.exit(1)
  }
)
