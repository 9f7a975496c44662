/**
 * The branding script on real page DOMs: WCXB dev pages (`../shared/corpus/wcxb-dev`) served on
 * loopback and rendered by the engine with `branding: true`, offline (their stylesheets, fonts
 * and images on other hosts do not load, so colours and fonts are the browser's defaults plus
 * inline styles; what this checks is that the script and core's profile hold on real markup:
 * samples that decode, no script errors, and the time).
 *
 *   node_modules/.bin/node -C @strata/source bench/branding/corpus.ts [--pages 30] [--write]
 *
 * `--write` stores bench/results/branding-corpus.json and .md.
 */
import { BrowserEngine, brandingFromSamples } from "@strata/core"
import { type Layer, ManagedRuntime } from "effect"
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { cpus, loadavg } from "node:os"
import { performance } from "node:perf_hooks"
import { gunzipSync } from "node:zlib"
import { layer } from "../../packages/browser/src/index.ts"

const args = process.argv.slice(2)
const count = Number(args[args.indexOf("--pages") + 1] ?? 30) || 30
// `--offset k` takes another sample (pages k, k + step, ...): one to look at, one to check on.
const offset = args.includes("--offset") ? Number(args[args.indexOf("--offset") + 1]) || 0 : 0
const corpus = new URL("../../../shared/corpus/wcxb-dev/html/", import.meta.url).pathname
// Every k-th page, so the sample spans the page types (the files are grouped by type).
const all = readdirSync(corpus).filter((f) => f.endsWith(".html.gz")).sort()
const step = Math.max(1, Math.floor(all.length / count))
const files = all.filter((_, i) => i % step === offset % step).slice(0, count)

const server = createServer((request, response) => {
  const file = (request.url ?? "/").slice(1).split("?")[0]
  if (!files.includes(file)) return void response.writeHead(404).end()
  response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(gunzipSync(readFileSync(corpus + file)))
})
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
const site = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
const loadBefore = loadavg()
const runtime = ManagedRuntime.make(layer({ concurrency: 1, policy: { allowPrivate: false, allowedOrigins: [site] } }) as Layer.Layer<BrowserEngine>)

interface Row {
  readonly file: string
  readonly outcome: "profile" | "script error" | "undecodable" | "render failed"
  readonly detail: string
  readonly renderMs: number
  readonly elements: number
  readonly logo: boolean
}
const rows: Array<Row> = []
for (const file of files) {
  const t = performance.now()
  const exit = await runtime.runPromise(BrowserEngine.use((engine) =>
    engine.render({ url: `${site}/${file}`, skipTlsVerification: false, mobile: false, waitFor: 0, actions: [], branding: true }, Date.now() + 45_000)
  )).then((page) => ({ page }), (error: unknown) => ({ error: String(error).slice(0, 120) }))
  const renderMs = Math.round(performance.now() - t)
  if ("error" in exit) {
    rows.push({ file, outcome: "render failed", detail: exit.error, renderMs, elements: 0, logo: false })
    continue
  }
  const branding = exit.page.branding
  if (branding === undefined || "error" in branding) {
    rows.push({ file, outcome: "script error", detail: branding === undefined ? "no samples" : branding.error.slice(0, 120), renderMs, elements: 0, logo: false })
    continue
  }
  const profile = brandingFromSamples(branding.samples)
  const elements = (branding.samples as { elements?: Array<unknown> }).elements?.length ?? 0
  rows.push(profile === undefined
    ? { file, outcome: "undecodable", detail: "", renderMs, elements, logo: false }
    : { file, outcome: "profile", detail: `${profile.colorScheme} primary ${profile.colors?.primary} font ${profile.typography?.fontFamilies?.primary} logo ${(profile.logo ?? "none").slice(0, 90)}`, renderMs, elements, logo: profile.logo !== null })
}
await runtime.dispose()
server.close()

const sorted = rows.map((r) => r.renderMs).sort((a, b) => a - b)
const pct = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]
const tally = (outcome: Row["outcome"]) => rows.filter((r) => r.outcome === outcome).length
const result = {
  date: new Date().toISOString(),
  pages: rows.length,
  profiles: tally("profile"),
  scriptErrors: tally("script error"),
  undecodable: tally("undecodable"),
  renderFailed: tally("render failed"),
  withLogo: rows.filter((r) => r.logo).length,
  renderMs: { p50: pct(0.5), p95: pct(0.95) },
  cpus: cpus().length,
  loadAverage: { before: loadBefore.map((n) => Math.round(n * 100) / 100), after: loadavg().map((n) => Math.round(n * 100) / 100) },
  rows
}
const md = `# branding on real page DOMs (WCXB dev, offline)

${result.date} · \`bench/branding/corpus.ts\` · ${result.pages} pages (every ${step}th of ${all.length}, from the ${offset}th) · ${result.cpus} cores, load average ${result.loadAverage.before.join(" / ")} before, ${result.loadAverage.after.join(" / ")} after.

Offline: the pages' stylesheets, fonts and images on other hosts do not load, so the colours and fonts below are mostly the browser's defaults; this checks that the script and the profile hold on real markup, not that the palette is right.

- Profiles: ${result.profiles}; script errors: ${result.scriptErrors}; samples that did not decode: ${result.undecodable}; renders that failed: ${result.renderFailed}.
- A logo picked on ${result.withLogo} pages (images mostly unloaded, so sizes come from attributes or are empty).
- Render with branding, ms: p50 ${result.renderMs.p50}, p95 ${result.renderMs.p95}.

| page | outcome | elements | ms | detail |
| --- | --- | ---: | ---: | --- |
${rows.map((r) => `| ${r.file} | ${r.outcome} | ${r.elements} | ${r.renderMs} | ${r.detail.replace(/\|/g, "\\\\|")} |`).join("\n")}
`
console.log(md)
if (args.includes("--write")) {
  mkdirSync("bench/results", { recursive: true })
  writeFileSync("bench/results/branding-corpus.json", JSON.stringify(result, null, 2) + "\n")
  writeFileSync("bench/results/branding-corpus.md", md)
}
