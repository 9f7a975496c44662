/**
 * The smart wait's windows, swept over the corpus of `Pages.ts` through the browser engine
 * directly (no server, no fetch first, no markdown): for each setting, the JavaScript pages whose
 * sentences all come back and the summed render time, next to the bare loop that waits for the
 * text (`Bare.ts`, "content"). At 1 at a time, settings and the bare loop alternate page by page,
 * so the machine's load falls on all of them alike; at more, each renders the corpus in turn.
 * What `run.ts` measures through the server is the figure of record; this is how the smart
 * wait's defaults were chosen (`SmartWait.ts` records the sweep).
 *
 *   node_modules/.bin/node -C @strata/source bench/browser/wait.ts [--rounds N] [--concurrency N] [--only a,b] [--settings 0,2] [--out FILE]
 */
import { layer, type WaitTuning } from "@strata/browser"
import { BrowserEngine } from "@strata/core"
import { Layer, ManagedRuntime } from "effect"
import { readFileSync, writeFileSync } from "node:fs"
import { loadavg } from "node:os"
import { parseArgs } from "node:util"
import { bareScrape, launchBare } from "./Bare.ts"
import { found, htmlText, median, pool, words } from "./Check.ts"
import { startFixtureServer } from "./FixtureServer.ts"
import { corpus } from "./Pages.ts"
import { processTree } from "../reliability/ServerProcess.ts"

/** CPU ms of this process and its children (every Chromium here), reaped children included. */
const cpuMs = (): number => {
  let ticks = 0
  for (const pid of processTree(process.pid)) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
      ticks += Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])
    } catch {
      // gone
    }
  }
  return ticks * 10
}

const { values: args } = parseArgs({ options: { rounds: { type: "string" }, concurrency: { type: "string" }, only: { type: "string" }, out: { type: "string" }, settings: { type: "string" } } })
const rounds = Number(args.rounds ?? 2)
const concurrency = Number(args.concurrency ?? 1)
const chromiumPath = process.env.STRATA_CHROMIUM_PATH ?? "/usr/bin/chromium"
const log = (line: string) => process.stderr.write(`${line}\n`)

interface Setting { readonly name: string; readonly wait: Partial<WaitTuning>; readonly blockAds: boolean }
const allSettings: Array<Setting> = [
  { name: "500/300 poll 100 (old)", wait: { networkQuietMs: 500, domQuietMs: 300, pollMs: 100, creditBeforeWait: false }, blockAds: true },
  { name: "200/150 poll 50, quiet before the wait counts", wait: { networkQuietMs: 200, domQuietMs: 150, pollMs: 50, creditBeforeWait: true }, blockAds: true },
  { name: "150/100 poll 50, quiet before the wait counts", wait: { networkQuietMs: 150, domQuietMs: 100, pollMs: 50, creditBeforeWait: true }, blockAds: true },
  { name: "150/100 poll 50, quiet before the wait counts, blockAds off", wait: { networkQuietMs: 150, domQuietMs: 100, pollMs: 50, creditBeforeWait: true }, blockAds: false },
  { name: "100/100 poll 25, quiet before the wait counts", wait: { networkQuietMs: 100, domQuietMs: 100, pollMs: 25, creditBeforeWait: true }, blockAds: true },
  { name: "200/150 poll 50, quiet before the wait counts, blockAds off", wait: { networkQuietMs: 200, domQuietMs: 150, pollMs: 50, creditBeforeWait: true }, blockAds: false }
]
const chosen = args.settings === undefined ? undefined : new Set(args.settings.split(",").map(Number))
const settings = allSettings.filter((_, i) => chosen === undefined || chosen.has(i))

const only = args.only === undefined ? undefined : new Set(args.only.split(","))
const pages = corpus().filter((p) => p.js && (only === undefined || only.has(p.name)))
const fixtures = await startFixtureServer(corpus())
let nonce = 0
const urlOf = (path: string): string => {
  const [base, hash] = path.split("#")
  return `${fixtures.origin}${base}?n=${++nonce}${hash === undefined ? "" : `#${hash}`}`
}

const runtimes = settings.map((s) =>
  ManagedRuntime.make(layer({ concurrency: Math.max(2, concurrency), policy: { allowPrivate: true }, smartWait: s.wait }) as Layer.Layer<BrowserEngine>)
)
const bare = await launchBare(chromiumPath)

interface Cell { ms: Array<number>; complete: number; missed: Set<string> }
const cells = new Map<string, Cell>([...settings.map((s) => s.name), "bare (waits for the text)"].map((name) => [name, { ms: [], complete: 0, missed: new Set<string>() }]))
const perPage = new Map<string, Map<string, Array<number>>>()
const note = (setting: string, page: string, ms: number, ok: boolean, failed = false) => {
  const cell = cells.get(setting) as Cell
  cell.ms.push(ms)
  if (ok) cell.complete++
  else cell.missed.add(failed ? `${page} (render failed)` : page)
  const row = perPage.get(page) ?? new Map<string, Array<number>>()
  row.set(setting, [...(row.get(setting) ?? []), ms])
  perPage.set(page, row)
}

// A first render per engine starts its Chromium (and builds the ad-block engine) outside the figures.
for (const runtime of runtimes) await runtime.runPromise(BrowserEngine.use((e) => e.render({ url: urlOf(pages[0].path), skipTlsVerification: false, mobile: false, waitFor: 0, actions: [] }, Date.now() + 30_000)))
const loads: Array<Array<number>> = [loadavg()]
const wallBySetting = new Map<string, number>()
const cpuBySetting = new Map<string, number>()

const systems: Array<readonly [number, Setting | undefined]> = [...settings.entries(), [-1, undefined] as const]
const renderOnce = async (i: number, setting: Setting | undefined, page: (typeof pages)[number]) => {
  const name = setting?.name ?? "bare (waits for the text)"
  const t0 = performance.now()
  if (setting === undefined) {
    const answer = await bareScrape(bare, urlOf(page.path), page.sentences, "content")
    note(name, page.name, performance.now() - t0, answer.error === "" && answer.found === page.sentences.length)
    return
  }
  const body = await runtimes[i].runPromise(BrowserEngine.use((e) =>
    e.render({ url: urlOf(page.path), skipTlsVerification: false, mobile: false, waitFor: 0, actions: [], blockAds: setting.blockAds }, Date.now() + 30_000)
  )).then((p) => new TextDecoder().decode(p.body), () => undefined)
  // A render that failed (its deadline under load, say) is named apart from one that came back short.
  note(name, page.name, performance.now() - t0, body !== undefined && found(words(htmlText(body)), page.sentences) === page.sentences.length, body === undefined)
}

for (let round = 0; round < rounds; round++) {
  // The order of the systems turns every round, so none always goes first after a page change.
  const order = systems.map((_, k) => systems[(k + round) % systems.length])
  if (concurrency === 1) {
    // One page at a time, every system on it in turn: a change in the machine's load falls on all alike.
    for (const page of pages) {
      for (const [i, setting] of order) {
        const started = performance.now()
        const cpuBefore = cpuMs()
        await renderOnce(i, setting, page)
        const name = setting?.name ?? "bare (waits for the text)"
        wallBySetting.set(name, (wallBySetting.get(name) ?? 0) + performance.now() - started)
        cpuBySetting.set(name, (cpuBySetting.get(name) ?? 0) + cpuMs() - cpuBefore)
      }
    }
  } else {
    for (const [i, setting] of order) {
      const name = setting?.name ?? "bare (waits for the text)"
      const started = performance.now()
      const cpuBefore = cpuMs()
      await pool(pages, concurrency, (page) => renderOnce(i, setting, page))
      wallBySetting.set(name, (wallBySetting.get(name) ?? 0) + performance.now() - started)
      cpuBySetting.set(name, (cpuBySetting.get(name) ?? 0) + cpuMs() - cpuBefore)
    }
  }
  loads.push(loadavg())
  log(`round ${round + 1}/${rounds} done, load ${loadavg().map((x) => x.toFixed(2)).join(" ")}`)
}

const bareSum = (cells.get("bare (waits for the text)") as Cell).ms.reduce((a, b) => a + b, 0)
const bareWall = wallBySetting.get("bare (waits for the text)") ?? 1
const lines = [
  `Smart wait sweep: ${pages.length} JavaScript pages x ${rounds} rounds at concurrency ${concurrency}, engine called directly (forced browser, no server). Load average (1/5/15 min) ${loads.map((l) => l.map((x) => x.toFixed(2)).join("/")).join(" -> ")}.`,
  "",
  "| setting | pages complete (all rounds) | median render | summed render | sum / bare | pages/s | bare pages/s / this | CPU per page (Node + Chromium) |",
  "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
  ...[...cells.entries()].map(([name, cell]) => {
    const sum = cell.ms.reduce((a, b) => a + b, 0)
    const wall = wallBySetting.get(name) ?? 1
    return `| ${name} | ${cell.complete} / ${cell.ms.length}${cell.missed.size > 0 ? ` (missed: ${[...cell.missed].join(", ")})` : ""} | ${median(cell.ms).toFixed(0)} ms | ${sum.toFixed(0)} ms | ${(sum / bareSum).toFixed(2)}x | ${((cell.ms.length / wall) * 1000).toFixed(2)} | ${((wall / bareWall)).toFixed(2)}x | ${((cpuBySetting.get(name) ?? 0) / cell.ms.length).toFixed(0)} ms |`
  }),
  "",
  "Per page, median render (ms):",
  "",
  `| page | ${[...cells.keys()].join(" | ")} |`,
  `| --- | ${[...cells.keys()].map(() => "---:").join(" | ")} |`,
  ...[...perPage.entries()].map(([page, row]) => `| ${page} | ${[...cells.keys()].map((k) => median(row.get(k) ?? []).toFixed(0)).join(" | ")} |`)
]
const text = `${lines.join("\n")}\n`
process.stdout.write(text)
if (args.out !== undefined) writeFileSync(args.out, text)
await bare.close()
for (const runtime of runtimes) await runtime.dispose()
await fixtures.close()
process.exit(0)
