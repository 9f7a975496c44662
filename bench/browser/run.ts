/**
 * The browser benchmark (issue 14, "How it is checked"): the corpus of `Pages.ts`, served on
 * loopback, scraped through the real server (`packages/http/src/bin.ts`, as `npm start` runs it
 * unsupervised) and through a bare Playwright loop on the same Chromium, in one run.
 *
 * 1. Content: the share of pages whose sentences come back with the fetch engine alone (a second
 *    server with `STRATA_BROWSER=off`), with the browser forced (`waitFor: 1`), and through the
 *    automatic choice (no options), next to the bare loop.
 * 2. Crash: Chromium SIGKILLed while a render is in flight; the answer, /health throughout, and
 *    the next scrape.
 * 3. Latency and throughput through /v2/scrape on the JavaScript pages at 1, 4 and 8 concurrent
 *    requests (automatic choice), each run against the bare loop at the same concurrency. The
 *    first run comes before the leak check, the others after it.
 * 4. Leak: settled RSS after 50 sequential scrapes and after 500 (one at a time unless
 *    `--leak-lanes` says otherwise).
 * Peak RSS of the server's process tree (Chromium included) is sampled every 100 ms throughout.
 * Every scrape URL carries a fresh query string, so no answer comes from the cache. The results
 * are written after every phase, so a run cut short still leaves its figures.
 *
 *   node_modules/.bin/node -C @strata/source bench/browser/run.ts [--quick] [--runs N] [--leak-to N] [--out BASE]
 *     [--leak-lanes N] [--only page,page] [--content-only]
 */
import { execFileSync } from "node:child_process"
import { readFileSync, writeFileSync } from "node:fs"
import { availableParallelism, loadavg, tmpdir, totalmem } from "node:os"
import { join } from "node:path"
import { parseArgs } from "node:util"
import { processTree, repoRoot, ServerProcess, sleep, treeRss } from "../reliability/ServerProcess.ts"
import { bareScrape, type BareVariant, launchBare } from "./Bare.ts"
import { found, median, pool, quantile, scrape, words } from "./Check.ts"
import { startFixtureServer } from "./FixtureServer.ts"
import { corpus, type Page } from "./Pages.ts"
import { reportMarkdown, type Results } from "./Report.ts"

const { values: args } = parseArgs({
  options: {
    quick: { type: "boolean", default: false },
    runs: { type: "string" },
    "leak-to": { type: "string" },
    "content-only": { type: "boolean", default: false },
    "leak-lanes": { type: "string" },
    only: { type: "string" },
    out: { type: "string" }
  }
})
const quick = args.quick
const contentOnly = args["content-only"]
const runs = contentOnly ? 0 : Number(args.runs ?? (quick ? 1 : 3))
const leakAt = quick ? 10 : 50
const leakTo = contentOnly ? 0 : Number(args["leak-to"] ?? (quick ? 40 : 500))
const leakLanes = Number(args["leak-lanes"] ?? 1)
const levels = [1, 4, 8]
const chromiumPath = process.env.STRATA_CHROMIUM_PATH ?? "/usr/bin/chromium"
const outBase = args.out ?? (quick ? join(tmpdir(), "strata-browser-quick") : join(repoRoot, "bench/results/browser"))
const MB = 1024 * 1024
const log = (line: string) => process.stderr.write(`${line}\n`)

const allPages = corpus()
const quickNames = new Set(["inline-inject", "react-like-root", "fetch-json", "timeout-1500", "hash-router", "shadow-dom", "infinite-scroll", "document-write", "chrome-empty-main", "static-article", "static-with-analytics"])
const only = args.only === undefined ? undefined : new Set(args.only.split(","))
const pages = allPages.filter((p) => (only !== undefined ? only.has(p.name) : !quick || quickNames.has(p.name)))
const jsPages = pages.filter((p) => p.js)

/** The crash target: a render held in flight by an API that answers after 6 s. */
const crashRoutes = {
  "/crash/slow": { body: `<!doctype html><html><body><main id="m"></main><script>fetch("/crash/api.json").then((r) => r.json()).then((d) => { document.getElementById("m").textContent = d.text })</script></body></html>`, contentType: "text/html" },
  "/crash/api.json": { body: JSON.stringify({ text: "late" }), contentType: "application/json", delayMs: 6000 }
}
const fixtures = await startFixtureServer(allPages, crashRoutes)
let nonce = 0
const urlOf = (page: Page | string): string => {
  const path = typeof page === "string" ? page : page.path
  const [base, hash] = path.split("#")
  return `${fixtures.origin}${base}?n=${++nonce}${hash === undefined ? "" : `#${hash}`}`
}

// The code the servers run: HEAD when they start, and whether the work tree had changes on top
// (the tree is shared; the commit at the end of a long run says nothing about what ran).
const startCommit = ((): string => {
  const head = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: repoRoot, encoding: "utf8" }).trim()
  const changed = execFileSync("git", ["status", "--porcelain", "--untracked-files=no"], { cwd: repoRoot, encoding: "utf8" }).trim().split("\n").filter((l) => l !== "").length
  return changed === 0 ? head : `${head} + ${changed} changed file(s) in the work tree`
})()
const loadAverages: Array<{ at: string; load: Array<number> }> = []
const noteLoad = (at: string) => loadAverages.push({ at, load: loadavg().map((x) => Number(x.toFixed(2))) })
noteLoad("start")
const runStarted = performance.now()
/** The phases finished, in order. */
const done: Array<string> = []

// ---- 1a. the fetch engine alone -------------------------------------------------------------

type Mode = "fetch" | "forced" | "auto"
interface ContentRow { page: string; mode: Mode | `bare-${BareVariant}`; found: number; of: number; beyond: number; engine?: string | undefined; status?: number; ms: number; error: string }
const content: Array<ContentRow> = []

const contentPass = async (baseUrl: string, mode: Mode) => {
  for (const page of pages) {
    const answer = await scrape(baseUrl, mode === "forced" ? { url: urlOf(page), waitFor: 1 } : { url: urlOf(page) })
    const text = words(answer.markdown)
    content.push({ page: page.name, mode, found: found(text, page.sentences), of: page.sentences.length, beyond: found(text, page.beyond), engine: answer.engine, status: answer.status, ms: answer.ms, error: answer.error })
  }
}

const contentPasses = 1
{
  const fetchOnly = new ServerProcess({ logFile: `${outBase}.fetch-server.log`, env: { STRATA_BROWSER: "off" } })
  writeFileSync(`${outBase}.fetch-server.log`, "")
  await fetchOnly.start()
  log(`fetch-only server on ${fetchOnly.baseUrl}`)
  for (let pass = 0; pass < contentPasses; pass++) await contentPass(fetchOnly.baseUrl, "fetch")
  await fetchOnly.stop()
}

// ---- the server with the browser, sampled throughout ------------------------------------------

writeFileSync(`${outBase}.server.log`, "")
const server = new ServerProcess({ logFile: `${outBase}.server.log` })
await server.start()
const idleBeforeBrowser = treeRss(server.pid)
let peakRss = idleBeforeBrowser
let peakBareRss = 0
const sampler = setInterval(() => {
  if (server.alive()) peakRss = Math.max(peakRss, treeRss(server.pid))
  // The bench process and its own Chromium (the bare loop's), for comparison.
  peakBareRss = Math.max(peakBareRss, treeRss(process.pid))
}, 100)
log(`server on ${server.baseUrl}, RSS before Chromium ${(idleBeforeBrowser / MB).toFixed(0)} MB; fixtures on ${fixtures.origin}`)

const bare = await launchBare(chromiumPath)
const chromiumVersion = bare.version()

// ---- what the phases record ---------------------------------------------------------------------

interface LatencyRun { system: "strata" | `bare-${BareVariant}`; concurrency: number; run: number; p50: number; p95: number; pagesPerSecond: number; totalMs: number; sumMs: number; failures: number; missed: Array<string>; perPage: Record<string, number>; cpu: Cpu }
const latency: Array<LatencyRun> = []
interface CrashTrial { mode: Mode; killed: number; answer: { status: number; ms: number; engine: string | undefined; error: string; warning: string | undefined }; longestHealthGapMs: number; healthFailures: number; next: { status: number; engine: string | undefined; found: number; of: number; ms: number; error: string } }
const crashes: Array<CrashTrial> = []
const leakPages = jsPages.filter((p) => !/^timeout-|slow-api|interval|chained/.test(p.name))
let leakFailures = 0
let leakSeconds = 0
const leakReadings: Array<{ after: number; rssMb: number }> = []

/** Results so far: written after every phase, so a run cut short still leaves its figures. */
const save = () => {
  const r = results()
  writeFileSync(`${outBase}.json`, `${JSON.stringify(r, null, 1)}\n`)
  writeFileSync(`${outBase}.md`, reportMarkdown(r))
}
const results = (): Results => ({
  meta: {
    date: new Date().toISOString(),
    quick,
    runs,
    contentPasses,
    pages: pages.length,
    jsPages: jsPages.length,
    node: process.version,
    chromium: chromiumVersion,
    cores: availableParallelism(),
    memoryGb: totalmem() / 2 ** 30,
    loadAverages,
    seconds: (performance.now() - runStarted) / 1000,
    leakLanes,
    commit: startCommit
  },
  pages: pages.map((p) => ({ name: p.name, kind: p.kind, js: p.js, path: p.path, sentences: p.sentences.length, beyond: p.beyond.length })),
  content,
  latency,
  rss: { beforeBrowserMb: idleBeforeBrowser / MB, peakMb: peakRss / MB, peakBareMb: peakBareRss / MB },
  leak: { at: leakAt, to: leakTo, readings: leakReadings, failures: leakFailures, seconds: leakSeconds, pages: leakPages.map((p) => p.name) },
  crashes,
  server: { alive: server.alive(), starts: server.starts },
  done
})

// ---- 1b. forced browser, automatic choice, bare loop --------------------------------------------

for (let pass = 0; pass < contentPasses; pass++) {
  await contentPass(server.baseUrl, "forced")
  await contentPass(server.baseUrl, "auto")
  for (const variant of ["simple", "content"] as const) {
    for (const page of pages) {
      const answer = await bareScrape(bare, urlOf(page), page.sentences, variant)
      content.push({ page: page.name, mode: `bare-${variant}`, found: answer.found, of: page.sentences.length, beyond: 0, ms: answer.ms, error: answer.error })
    }
  }
  log(`content pass ${pass + 1}/${contentPasses} done`)
}
noteLoad("after content")
done.push("content")
save()


// ---- 2. crash: Chromium SIGKILLed mid-request ------------------------------------------------------

const chromiumPids = (): Array<number> =>
  processTree(server.pid).filter((p) => {
    try {
      return /chrom/i.test(readFileSync(`/proc/${p}/comm`, "utf8"))
    } catch {
      return false
    }
  })

const nextPage = jsPages.find((p) => p.name === "react-like-root") ?? jsPages[0]
const crashModes: ReadonlyArray<Mode> = contentOnly ? [] : quick ? ["forced", "auto"] : ["forced", "forced", "forced", "auto"]
for (const mode of crashModes) {
  // The browser must be up before the kill: a render first.
  await scrape(server.baseUrl, { url: urlOf(nextPage) })
  let lastOk = performance.now()
  let longestGap = 0
  let healthFailures = 0
  let probing = true
  const prober = (async () => {
    while (probing) {
      const ok = await server.healthy(2000)
      const now = performance.now()
      if (ok) {
        longestGap = Math.max(longestGap, now - lastOk)
        lastOk = now
      } else healthFailures++
      await sleep(100)
    }
  })()
  const inFlight = scrape(server.baseUrl, mode === "forced" ? { url: urlOf("/crash/slow"), waitFor: 1 } : { url: urlOf("/crash/slow") })
  await sleep(1500)
  const pids = chromiumPids()
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL")
    } catch {
      // gone already
    }
  }
  const answer = await inFlight
  await sleep(1000)
  probing = false
  await prober
  const next = await scrape(server.baseUrl, { url: urlOf(nextPage) })
  crashes.push({
    mode,
    killed: pids.length,
    answer: { status: answer.status, ms: answer.ms, engine: answer.engine, error: answer.error, warning: answer.warning },
    longestHealthGapMs: longestGap,
    healthFailures,
    next: { status: next.status, engine: next.engine, found: found(words(next.markdown), nextPage.sentences), of: nextPage.sentences.length, ms: next.ms, error: next.error }
  })
  save()
  log(`crash (${mode}): killed ${pids.length}, answer ${answer.status} ${answer.error.slice(0, 100)} in ${answer.ms.toFixed(0)} ms; next ${next.status} ${next.engine}`)
}
done.push("crash")

// ---- 3. latency and throughput: the first run here, the others after the leak check ---------------

/** CPU seconds of a process tree, Node processes and Chromium's apart (exited children count once their parent has reaped them). */
interface Cpu { node: number; chromium: number }
const ticks = 100
const cpuOf = (root: number): Cpu => {
  const cpu: Cpu = { node: 0, chromium: 0 }
  for (const pid of processTree(root)) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
      // utime, stime, cutime, cstime: fields 14-17 of stat, 12-15 after the name.
      const seconds = (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) / ticks
      if (/chrom/i.test(stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")))) cpu.chromium += seconds
      else cpu.node += seconds
    } catch {
      // gone
    }
  }
  return cpu
}
const cpuSince = (before: Cpu, after: Cpu): Cpu => ({ node: after.node - before.node, chromium: after.chromium - before.chromium })

const measure = async (system: LatencyRun["system"], concurrency: number, run: number) => {
  // Strata's CPU is the server tree's; the bare loop's is this process's (Playwright's client) and its Chromium's.
  const root = system === "strata" ? server.pid : process.pid
  const cpuBefore = cpuOf(root)
  const times: Array<number> = []
  const perPage: Record<string, number> = {}
  const missed: Array<string> = []
  let failures = 0
  const wall = await pool(jsPages, concurrency, async (page) => {
    if (system === "strata") {
      const answer = await scrape(server.baseUrl, { url: urlOf(page) })
      if (answer.status !== 200 || found(words(answer.markdown), page.sentences) < page.sentences.length) {
        failures++
        missed.push(page.name)
      }
      times.push(answer.ms)
      perPage[page.name] = answer.ms
    } else {
      const answer = await bareScrape(bare, urlOf(page), page.sentences, system.slice("bare-".length) as BareVariant)
      if (answer.error !== "" || answer.found < page.sentences.length) {
        failures++
        missed.push(page.name)
      }
      times.push(answer.ms)
      perPage[page.name] = answer.ms
    }
  })
  const cpu = cpuSince(cpuBefore, cpuOf(root))
  latency.push({ system, concurrency, run, p50: quantile(times, 0.5), p95: quantile(times, 0.95), pagesPerSecond: jsPages.length / (wall / 1000), totalMs: wall, sumMs: times.reduce((a, b) => a + b, 0), failures, missed, perPage, cpu })
}
/** One latency run: every level, Strata and the bare loop alternating so that a change in the machine's load falls on both. */
const latencyRun = async (run: number) => {
  for (const concurrency of levels) {
    await measure("strata", concurrency, run)
    await measure("bare-simple", concurrency, run)
    await measure("bare-content", concurrency, run)
    // Playwright's own generic wait, at 1 only: it shows what a wait that does not know the answer costs.
    if (concurrency === 1) await measure("bare-idle", concurrency, run)
    save()
    log(`latency run ${run + 1}/${runs} at ${concurrency}: ${latency.slice(concurrency === 1 ? -4 : -3).map((l) => `${l.system} p50 ${l.p50.toFixed(0)} ms ${l.pagesPerSecond.toFixed(2)}/s`).join("; ")}`)
  }
}
// The first latency run before the leak check, the others after: a run cut short still has one.
if (runs > 0) await latencyRun(0)

// ---- 4. leak: settled RSS after 50 and after 500 scrapes -----------------------------------------

/** RSS once the server has been idle: the median of 10 samples over 2 s, after 3 s of quiet. */
const settledRss = async (): Promise<number> => {
  await sleep(3000)
  const samples: Array<number> = []
  for (let i = 0; i < 10; i++) {
    samples.push(treeRss(server.pid))
    await sleep(200)
  }
  return median(samples)
}
const leakStarted = performance.now()
let leakDone = 0
const leakMarks = [...new Set([leakAt, ...(quick ? [] : [100, 200, 300, 400]), leakTo])].filter((n) => n > 0 && n <= leakTo).sort((a, b) => a - b)
for (const mark of leakMarks) {
  // The first 50 one at a time; after that `--leak-lanes` at a time (1 unless asked).
  const batch = Array.from({ length: mark - leakDone }, (_, k) => leakPages[(leakDone + k) % leakPages.length])
  await pool(batch, leakDone === 0 ? 1 : leakLanes, async (page) => {
    const answer = await scrape(server.baseUrl, { url: urlOf(page) })
    if (answer.status !== 200) leakFailures++
  })
  leakDone = mark
  leakReadings.push({ after: mark, rssMb: (await settledRss()) / MB })
  leakSeconds = (performance.now() - leakStarted) / 1000
  log(`leak: ${mark} scrapes, settled RSS ${leakReadings.at(-1)?.rssMb.toFixed(0)} MB`)
  save()
}
noteLoad("after leak")
done.push("leak")

for (let run = 1; run < runs; run++) await latencyRun(run)
noteLoad("after latency")
done.push("latency")

noteLoad("end")
clearInterval(sampler)
done.push("end")
save()
await bare.close()
await server.stop()
await fixtures.close()
log(`wrote ${outBase}.md and .json in ${((performance.now() - runStarted) / 1000).toFixed(0)} s`)
process.exit(0)
