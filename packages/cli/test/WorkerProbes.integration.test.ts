/**
 * A real `strata worker --health-port 0` process on a throwaway Postgres: its /metrics is
 * Prometheus text whose job counters follow the corpus it drains (4 CSV files converted, a corrupt
 * PDF's first attempt failed), its /ready is 200 while the queue answers and 503 once Postgres is
 * stopped, while /health (liveness) still answers.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdir, mkdtemp, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { parseExposition } from "../../http/test/PrometheusParse.ts"
import { startPostgres, type TempPostgres } from "../../store/test/support/TempPostgres.ts"

const bin = fileURLToPath(new URL("../src/bin.ts", import.meta.url))

let postgres: TempPostgres | undefined
const children: Array<ChildProcess> = []
beforeAll(async () => {
  postgres = await startPostgres()
}, 120_000)
afterAll(() => {
  for (const child of children) child.kill("SIGKILL")
  postgres?.stop()
})

const strata = (args: ReadonlyArray<string>, env: Record<string, string>) => {
  const child = spawn(process.execPath, ["--conditions=@strata/source", bin, ...args], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] })
  children.push(child)
  let err = ""
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => void (err += chunk))
  child.stdout!.resume()
  return { child, err: () => err, exited: new Promise<number | null>((resolve) => child.on("exit", resolve)) }
}

const waitFor = async <A>(read: () => Promise<A | undefined> | A | undefined, what: string, timeoutMs: number): Promise<A> => {
  const end = Date.now() + timeoutMs
  for (;;) {
    const value = await read()
    if (value !== undefined) return value
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}

describe("strata worker --health-port", () => {
  it("counts the jobs it drains in /metrics, and /ready goes 503 when Postgres stops", async () => {
    const env = { STRATA_DATABASE_URL: postgres!.createDatabase(`probes${process.pid}`), STRATA_BROWSER: "off" }
    const root = await mkdtemp(join(tmpdir(), "strata-worker-probes-"))
    await mkdir(join(root, "in"))
    for (let i = 0; i < 4; i++) await writeFile(join(root, "in", `t${i}.csv`), `name,qty\nitem-${i},${i}\n`)
    await writeFile(join(root, "in", "broken.pdf"), "%PDF-1.7\nthis is not really a pdf")
    const submit = strata(["parse", join(root, "in"), "--out", join(root, "out"), "--queue"], env)
    expect(await submit.exited).toBe(0)

    const worker = strata(["worker", "--slots", "1", "--health-port", "0"], env)
    const url = await waitFor(() => /\/metrics on (http:\/\/127\.0\.0\.1:\d+)/.exec(worker.err())?.[1], "the probe listener", 60_000)
    expect((await fetch(`${url}/health`)).status).toBe(200)
    const metrics = async () => {
      const response = await fetch(`${url}/metrics`)
      expect(response.status).toBe(200)
      return parseExposition(await response.text())
    }
    const first = await metrics()
    expect(first.value("strata_worker_slots", { state: "busy" })! + first.value("strata_worker_slots", { state: "free" })!).toBe(1)
    expect(first.types.get("strata_queue_jobs")).toBe("gauge")
    expect(first.value("strata_queue_jobs", { queue: "corpus", state: "failed" })).toBeDefined()

    const counted = await waitFor(async () => {
      const m = await metrics()
      const done = m.value("strata_worker_jobs_total", { outcome: "done" })!
      const failed = m.value("strata_worker_jobs_total", { outcome: "failed" })!
      return done >= 4 && failed >= 1 ? { done, failed } : undefined
    }, "4 documents converted and the corrupt one's first attempt failed", 120_000)
    expect(counted.done).toBe(4)
    expect((await fetch(`${url}/ready`)).status).toBe(200)

    postgres!.stop()
    postgres = undefined
    const down = await fetch(`${url}/ready`)
    expect(down.status).toBe(503)
    expect(((await down.json()) as { error: string }).error).toMatch(/^queue corpus: /)
    expect((await fetch(`${url}/health`)).status).toBe(200)
  }, 240_000)
})
