/**
 * Two settings of the browser engine paired on the JavaScript pages of `Pages.ts`: each page is
 * rendered by both in turn (the order turning every round), so the shared machine's load falls on
 * both alike and only the ratio is read. Each render is preceded by a plain fetch of the page, as
 * the server's automatic choice fetches first. At 1 at a time each render is followed by `--gap`
 * ms idle (default 1000), and Chromium CPU (this process's Chromium children, both settings')
 * is read over the render and its gap: the work a setting leaves behind it (a spare context
 * made) falls in its own gap, not on the other's render. At `--concurrency` above 1 each setting
 * renders the whole corpus in turn.
 *
 *   node_modules/.bin/node -C @strata/source bench/browser/ab.ts [--rounds N] [--concurrency N] [--only a,b] [--gap ms]
 */
import { layer } from "@strata/browser"
import { BrowserEngine } from "@strata/core"
import { type Layer, ManagedRuntime } from "effect"
import { loadavg } from "node:os"
import { parseArgs } from "node:util"
import { found, htmlText, median, pool, words } from "./Check.ts"
import { chromiumCpuMs } from "./ChromiumCpu.ts"
import { startFixtureServer } from "./FixtureServer.ts"
import { corpus } from "./Pages.ts"

const { values: args } = parseArgs({ options: { rounds: { type: "string" }, concurrency: { type: "string" }, only: { type: "string" }, gap: { type: "string" } } })
/** Idle time after each render at 1 at a time, counted in its CPU (not its latency): a spare made then is paid for by the setting that made it, not by the next render of the other. */
const gapMs = Number(args.gap ?? 1000)
const rounds = Number(args.rounds ?? 2)
const concurrency = Number(args.concurrency ?? 1)
const only = args.only === undefined ? undefined : new Set(args.only.split(","))
const pages = corpus().filter((p) => p.js && (only === undefined || only.has(p.name)))
const fixtures = await startFixtureServer(corpus())
const urlOf = fixtures.url

const settings = [
  { name: "A: current (spare context)", options: { spareContext: true } },
  { name: "B: a new context per render", options: { spareContext: false } }
]
const runtimes = settings.map((s) => ManagedRuntime.make(layer({ concurrency: Math.max(2, concurrency), policy: { allowPrivate: true }, ...s.options }) as Layer.Layer<BrowserEngine>))

const renderOnce = async (i: number, page: (typeof pages)[number]): Promise<{ ms: number; ok: boolean }> => {
  const url = urlOf(page.path)
  const t0 = performance.now()
  await fetch(url).then((r) => r.text())
  const body = await runtimes[i].runPromise(BrowserEngine.use((e) =>
    e.render({ url, skipTlsVerification: false, mobile: false, waitFor: 0, actions: [] }, Date.now() + 30_000)
  )).then((p) => new TextDecoder().decode(p.body), () => undefined)
  return { ms: performance.now() - t0, ok: body !== undefined && found(words(htmlText(body)), page.sentences) === page.sentences.length }
}

for (let i = 0; i < runtimes.length; i++) await renderOnce(i, pages[0])
const ms = settings.map(() => [] as Array<number>)
const ok = settings.map(() => 0)
const cpu = settings.map(() => 0)
const wall = settings.map(() => 0)
const loads = [loadavg()]
for (let round = 0; round < rounds; round++) {
  const order = settings.map((_, k) => (k + round) % settings.length)
  if (concurrency === 1) {
    for (const page of pages) {
      for (const i of order) {
        const c0 = chromiumCpuMs()
        const answer = await renderOnce(i, page)
        await new Promise((r) => setTimeout(r, gapMs))
        cpu[i] += chromiumCpuMs() - c0
        wall[i] += answer.ms
        ms[i].push(answer.ms)
        if (answer.ok) ok[i]++
      }
    }
  } else {
    for (const i of order) {
      const c0 = chromiumCpuMs()
      const t0 = performance.now()
      await pool(pages, concurrency, async (page) => {
        const answer = await renderOnce(i, page)
        ms[i].push(answer.ms)
        if (answer.ok) ok[i]++
      })
      wall[i] += performance.now() - t0
      cpu[i] += chromiumCpuMs() - c0
    }
  }
  loads.push(loadavg())
  process.stderr.write(`round ${round + 1}/${rounds}, load ${loadavg().map((x) => x.toFixed(2)).join(" ")}\n`)
}
const sum = (xs: Array<number>) => xs.reduce((a, b) => a + b, 0)
const lines = [
  `${pages.length} JavaScript pages x ${rounds} rounds at concurrency ${concurrency}, fetch first then the engine, settings alternating; load average ${loads.map((l) => l.map((x) => x.toFixed(1)).join("/")).join(" -> ")}.`,
  "",
  "| setting | complete | median | summed (1 at a time) or wall | ratio to B | Chromium CPU per page |",
  "| --- | ---: | ---: | ---: | ---: | ---: |",
  ...settings.map((s, i) => {
    const total = concurrency === 1 ? sum(ms[i]) : wall[i]
    const totalB = concurrency === 1 ? sum(ms[1]) : wall[1]
    return `| ${s.name} | ${ok[i]} / ${ms[i].length} | ${median(ms[i]).toFixed(0)} ms | ${total.toFixed(0)} ms | ${(total / totalB).toFixed(2)}x | ${(cpu[i] / ms[i].length).toFixed(0)} ms |`
  })
]
process.stdout.write(`${lines.join("\n")}\n`)
for (const runtime of runtimes) await runtime.dispose()
await fixtures.close()
process.exit(0)
