/**
 * A replica hands long documents to the fleet (issue 19, replicas): one real server process
 * (`bin.ts`, STRATA_DATABASE_URL on a throwaway Postgres, STRATA_QUEUE_ABOVE_PAGES=5) and one real
 * `strata worker` process. A 12-page PDF posted to the replica is read by the worker (its /metrics
 * counts the job, its log names the file) and answered with the markdown an inline parse gives;
 * a 2-page PDF is read by the replica itself (the worker's count does not move); the team is
 * charged once per request, what the answers say; a request whose timeout runs out while it waits
 * (the worker stopped with SIGSTOP) is the contract's 408, uncharged, and the worker, woken,
 * discards its job without reading it, as it discards the job of a client that went away. A
 * scrape of a long PDF's URL goes to the worker too, answered with the fetch's URL and status.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { createServer, type Server } from "node:http"
import { fileURLToPath } from "node:url"
import { Store } from "@strata/core"
import { layerPg } from "@strata/store"
import { Effect, ManagedRuntime, Redacted } from "effect"
import { createStrata } from "strata"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startPostgres, type TempPostgres } from "../../store/test/support/TempPostgres.ts"
import { parseExposition } from "./PrometheusParse.ts"
import { freePort, tempDir, textPdf } from "./support.ts"

const node = fileURLToPath(new URL("../../../node_modules/.bin/node", import.meta.url))
const serverBin = fileURLToPath(new URL("../src/bin.ts", import.meta.url))
const cliBin = fileURLToPath(new URL("../../cli/src/bin.ts", import.meta.url))
const CREDITS = 1000

let postgres: TempPostgres | undefined
let database = ""
let store: ManagedRuntime.ManagedRuntime<Store, unknown> | undefined
const children: Array<{ child: ChildProcess; output: () => string }> = []
let replica = ""
let workerOutput: () => string = () => ""
let workerProcess: ChildProcess | undefined
let workerProbes = ""
let key = ""

const spawnNode = (args: ReadonlyArray<string>, env: Record<string, string>) => {
  const { STRATA_API_KEYS: _keys, STRATA_DATABASE_URL: _db, ...base } = process.env
  const child = spawn(node, ["--conditions=@strata/source", ...args], {
    env: { ...base, STRATA_BROWSER: "off", STRATA_DATABASE_URL: database, ...env },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let output = ""
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")))
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")))
  children.push({ child, output: () => output })
  return { child, output: () => output }
}

const waitFor = async <A>(read: () => Promise<A | undefined> | A | undefined, what: string, timeoutMs: number, output: () => string): Promise<A> => {
  const end = Date.now() + timeoutMs
  for (;;) {
    const value = await read()
    if (value !== undefined) return value
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}:\n${output()}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

const startReplica = async (): Promise<string> => {
  const port = await freePort()
  const { output } = spawnNode([serverBin], {
    HOST: "127.0.0.1",
    PORT: String(port),
    STRATA_SUPERVISE: "0",
    STRATA_DATA_DIR: tempDir("strata-queued-replica-"),
    // The scraped PDF is served on loopback by this test.
    STRATA_ALLOW_PRIVATE_URLS: "1",
    STRATA_QUEUE_ABOVE_PAGES: "5"
  })
  const url = `http://127.0.0.1:${port}`
  // A 503 while it opens the store (ClientErrors.ts); each try bounded, so a lost request cannot hang the test.
  await waitFor(() => fetch(`${url}/health`, { signal: AbortSignal.timeout(5000) }).then((r) => (r.ok ? true : undefined), () => undefined), "the replica", 60_000, output)
  return url
}

const startWorker = async (): Promise<string> => {
  const { child, output } = spawnNode([cliBin, "worker", "--slots", "1", "--health-port", "0"], {})
  workerOutput = output
  workerProcess = child
  return waitFor(() => /\/metrics on (http:\/\/127\.0\.0\.1:\d+)/.exec(output())?.[1], "the worker's probes", 60_000, output)
}

const workerDone = async () =>
  parseExposition(await (await fetch(`${workerProbes}/metrics`)).text()).value("strata_worker_jobs_total", { outcome: "done" }) ?? 0

const replicaJobs = async (state: "queued" | "active") =>
  parseExposition(await (await fetch(`${replica}/metrics`)).text()).value("strata_queue_jobs", { queue: "corpus", state })
const replicaQueued = () => replicaJobs("queued")

const useStore = <A, E>(body: (store: Store["Service"]) => Effect.Effect<A, E>) => store!.runPromise(Effect.flatMap(Store, body))

const parse = async (bytes: Uint8Array, fileName: string, options?: Record<string, unknown>, signal?: AbortSignal, apiKey = key) => {
  const form = new FormData()
  form.append("file", new Blob([new Uint8Array(bytes)], { type: "application/pdf" }), fileName)
  if (options !== undefined) form.append("options", JSON.stringify(options))
  const response = await fetch(`${replica}/v2/parse`, { method: "POST", headers: { authorization: `Bearer ${apiKey}` }, body: form, signal })
  return { status: response.status, body: (await response.json()) as Record<string, any> }
}

beforeAll(async () => {
  postgres = await startPostgres()
  database = postgres.createDatabase(`queued_parse_${process.pid}`)
  // Migrated here, once, before the replica opens the database.
  store = ManagedRuntime.make(layerPg({ url: Redacted.make(database), cacheMaxBytes: 16 * 1024 * 1024, maxConnections: 2 }))
  key = await useStore((store) => Effect.andThen(store.setTeam("quay", { credits: CREDITS }), store.createKey("quay"))).then((created) => created.key)
  ;[replica, workerProbes] = await Promise.all([startReplica(), startWorker()])
}, 120_000)

let documents: Server | undefined

afterAll(async () => {
  documents?.close()
  for (const { child } of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
  await store?.dispose()
  postgres?.stop()
})

describe("a replica on the fleet's Postgres", () => {
  it("sends a long PDF to the worker and reads a short one itself, answering both as inline", async () => {
    const long = textPdf(12)
    const short = textPdf(2)
    // The inline answers: the same pipeline in this process.
    const inline = createStrata()
    const [inlineLong, inlineShort] = await Promise.all([
      inline.parse({ bytes: long, fileName: "long.pdf" }),
      inline.parse({ bytes: short, fileName: "short.pdf" })
    ]).finally(() => inline.close())
    expect(inlineLong.markdown).toContain("Page 12 line 12")

    expect(await workerDone()).toBe(0)
    const queued = await parse(long, "long.pdf")
    expect(queued.status).toBe(200)
    expect(queued.body.success).toBe(true)
    expect(queued.body.data.markdown).toBe(inlineLong.markdown)
    expect(queued.body.data.metadata.numPages ?? 12).toBe(12)
    // The worker read it: its job counter and its log say so.
    expect(await waitFor(async () => ((await workerDone()) === 1 ? 1 : undefined), "the worker's job count", 10_000, workerOutput)).toBe(1)
    expect(workerOutput()).toMatch(/parsed long\.pdf for a replica \(\d+ ms, attempt 1\)/)

    const inlined = await parse(short, "short.pdf")
    expect(inlined.status).toBe(200)
    expect(inlined.body.data.markdown).toBe(inlineShort.markdown)
    // Read here: the worker took no job for it.
    await new Promise((resolve) => setTimeout(resolve, 700))
    expect(await workerDone()).toBe(1)
    expect(workerOutput()).not.toMatch(/short\.pdf/)

    // Charged once each, as the answers say (a PDF read with the pdf parser costs a credit a page).
    const charged = (queued.body.data.metadata.creditsUsed as number) + (inlined.body.data.metadata.creditsUsed as number)
    expect(queued.body.data.metadata.creditsUsed).toBe(12)
    expect(charged).toBe(14)
    expect(await useStore((store) => store.balance("quay"))).toBe(CREDITS - charged)
  }, 60_000)

  it("answers 408 when the request's timeout runs out in the queue; that job and a gone client's are cancelled", async () => {
    const before = await useStore((store) => store.balance("quay"))
    const worker = workerProcess!
    // A fleet whose workers are all busy: this one stopped, so the job waits past the request's timeout.
    worker.kill("SIGSTOP")
    let late: Awaited<ReturnType<typeof parse>>
    const t0 = Date.now()
    try {
      // And a client that gives up before its answer: the replica's wait is interrupted, its job cancelled too.
      const client = new AbortController()
      const gone = parse(textPdf(9), "gone.pdf", { timeout: 30_000 }, client.signal).then(() => "answered", (error: Error) => error.name)
      // Aborted once its job is in the queue (the replica's own /metrics reads the queue).
      await waitFor(async () => ((await replicaQueued()) === 1 ? true : undefined), "the gone client's job", 15_000, workerOutput)
      client.abort()
      expect(await gone).toBe("AbortError")
      late = await parse(textPdf(8), "late.pdf", { timeout: 1000 })
    } finally {
      worker.kill("SIGCONT")
    }
    expect(Date.now() - t0).toBeLessThan(8000)
    expect(late.status).toBe(408)
    expect(late.body.success).toBe(false)
    expect(late.body.code).toBe("SCRAPE_TIMEOUT")
    // Neither job was taken before its replica stopped waiting: both were cancelled, and the woken worker never sees them.
    expect(await replicaQueued()).toBe(0)
    await new Promise((resolve) => setTimeout(resolve, 1500))
    expect(workerOutput()).not.toMatch(/(parsed|discarded parse).*(late|gone)\.pdf|discarded parse/)
    expect(await useStore((store) => store.balance("quay"))).toBe(before)
  }, 30_000)

  it("a team's slot stays with its job while a worker reads it, whatever becomes of the replica's wait", async () => {
    const soloKey = await useStore((store) => Effect.andThen(store.setTeam("solo", { credits: CREDITS, concurrency: 1 }), store.createKey("solo")))
      .then((created) => created.key)
    const worker = workerProcess!
    const client = new AbortController()
    // Long enough that its reader is still at it when the worker is stopped.
    const first = parse(textPdf(300), "held.pdf", { timeout: 60_000 }, client.signal, soloKey).then(() => "answered", (error: Error) => error.name)
    await waitFor(async () => ((await replicaJobs("active")) === 1 ? true : undefined), "the worker to take the job", 15_000, workerOutput)
    // The worker can neither answer nor end the job while stopped; its client gives up meanwhile.
    worker.kill("SIGSTOP")
    let blocked: Awaited<ReturnType<typeof parse>>
    try {
      client.abort()
      expect(await first).toBe("AbortError")
      // The team's one slot is the job's: a short document, which this replica would read itself,
      // waits for it until its wait gives up at two thirds of its timeout.
      blocked = await parse(textPdf(2), "blocked.pdf", { timeout: 3000 }, undefined, soloKey)
    } finally {
      worker.kill("SIGCONT")
    }
    expect(blocked.status).toBe(408)
    expect(blocked.body.error).toMatch(/waited \d+ ms for one of your team's concurrency slots/)
    // Woken, the worker finishes (its answer goes nowhere), the job ends, and the slot is the team's again.
    const after = await parse(textPdf(2), "after.pdf", { timeout: 30_000 }, undefined, soloKey)
    expect(after.status).toBe(200)
    expect(after.body.data.metadata.concurrencyLimited).toBeTypeOf("boolean")
    await waitFor(async () => ((await replicaJobs("active")) === 0 ? true : undefined), "the job to end", 15_000, workerOutput)
  }, 60_000)

  it("sends a scrape of a long PDF's URL to the worker, answered with the fetch's URL and status", async () => {
    const long = textPdf(12, "Quarterly report")
    documents = createServer((_request, response) => response.writeHead(200, { "content-type": "application/pdf" }).end(long))
    await new Promise<void>((listening) => documents!.listen(0, "127.0.0.1", listening))
    const url = `http://127.0.0.1:${(documents.address() as { port: number }).port}/files/report.pdf`
    const inline = createStrata()
    const expected = await inline.parse({ bytes: long, fileName: "report.pdf" }).finally(() => inline.close())
    const before = await workerDone()
    const response = await fetch(`${replica}/v2/scrape`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ url })
    })
    const body = (await response.json()) as Record<string, any>
    expect(response.status).toBe(200)
    expect(body.data.markdown).toBe(expected.markdown)
    expect(body.data.metadata.sourceURL).toBe(url)
    expect(body.data.metadata.url).toBe(url)
    expect(body.data.metadata.statusCode).toBe(200)
    expect(body.data.metadata.contentType).toBe("application/pdf")
    expect(body.data.metadata.creditsUsed).toBe(12)
    expect(await waitFor(async () => ((await workerDone()) === before + 1 ? true : undefined), "the worker's job count", 10_000, workerOutput)).toBe(true)
    expect(workerOutput()).toMatch(/parsed report\.pdf for a replica \(\d+ ms, attempt 1\)/)
  }, 60_000)
})
