/**
 * What the `branding` format costs a browser render, on fixture pages served on loopback: each
 * page rendered by the engine without and with `branding: true`, interleaved (p50/p95 ms a page,
 * and the difference); the branding script alone in a loaded page (in its isolated world, as the
 * engine runs it, the same Chromium); and core's profile from the samples. Pages: a light page that names its
 * colours, a dark page that paints them, a shop page, and a large page (3,000 paragraphs, 400
 * links, 60 buttons) that shows the per-kind caps at work.
 *
 *   node_modules/.bin/node -C @strata/source bench/branding/run.ts [--runs 10] [--write]
 *
 * `--write` stores bench/results/branding.json and .md.
 */
import { BrowserEngine, brandingFromSamples } from "@strata/core"
import { type Layer, ManagedRuntime } from "effect"
import { mkdirSync, writeFileSync } from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { cpus, loadavg } from "node:os"
import { performance } from "node:perf_hooks"
import { chromium } from "playwright-core"
import { layer } from "../../packages/browser/src/index.ts"
import { sampleBranding } from "../../packages/browser/src/BrandingScript.ts"

const args = process.argv.slice(2)
const runs = Number(args[args.indexOf("--runs") + 1] ?? 10) || 10

const doc = (title: string, style: string, body: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title><style>${style}</style></head><body>${body}</body></html>`

const pages: Record<string, string> = {
  light: doc("Tools | Acme", `:root { --brand-primary: #1d4ed8; --color-accent: #f59e0b; --success: #16a34a; --danger: #dc2626 }
    body { margin: 0; color: #111827; font: 16px/24px Inter, Arial, sans-serif } h1 { font: 700 40px/48px Georgia, serif }
    a { color: #2563eb } .btn { padding: 8px 16px; border-radius: 8px } .primary { background: #1d4ed8; color: #fff } .secondary { border: 1px solid #1d4ed8; color: #1d4ed8; background: none }`,
  `<header><a href="/"><img alt="Acme logo" width="120" height="40"></a><nav><a href="/a">About</a><a href="/p">Pricing</a></nav></header>
    <main><h1>Tools for builders</h1>${"<p>Acme makes tools for people who build things. <a href='/d'>Docs</a></p>".repeat(20)}
    <button class="btn primary">Start</button><a class="btn secondary" href="/demo">Demo</a><input placeholder="Email"></main>`),
  dark: doc("Nightjar", `html, body { margin: 0; background: #0b1020; color: #e5e7eb; font: 18px/1.6 system-ui } h1 { font-size: 56px; color: #fff }
    h2 { color: oklch(0.75 0.15 150) } a { color: #22d3ee } .cta { background: #7c3aed; color: #fff; border-radius: 999px; padding: 10px 20px }`,
  `<header><a href="/"><svg class="logo" width="140" height="32"><rect width="32" height="32" fill="#7c3aed"/></svg></a></header>
    <main><h1>Monitoring</h1><h2>Plans</h2>${"<p>Nightjar watches your services while you sleep. <a href='/x'>More</a></p>".repeat(20)}<button class="cta">Try</button></main>`),
  shop: doc("Kiln | Potters' supplies", `body { background: #fffaf5; color: #292524; font: 17px/1.5 "Work Sans", sans-serif }
    .card { border: 1px solid #e7e5e4; border-radius: 12px; padding: 16px; margin: 16px } .buy { background: #c2410c; color: #fff7ed; border-radius: 4px; padding: 12px 24px }`,
  `<header><a href="/"><img alt="Kiln" width="96" height="32"></a></header><main><h1>Clay</h1>${
    Array.from({ length: 40 }, (_, i) => `<div class="card"><h3>Clay ${i}</h3><p>Stoneware clay, 10 kg.</p><span>£${12 + i}.00</span><button class="buy">Add</button></div>`).join("")}</main>`),
  large: doc("Archive", `body { font: 15px/1.4 Helvetica, Arial } a { color: #0a58ca } .b { background: #198754; color: #fff; padding: 6px 12px; border-radius: 6px }`,
  `<main><h1>Archive</h1>${Array.from({ length: 3000 }, (_, i) => `<p>Entry ${i}: ${"words of the archive ".repeat(6)}${i % 8 === 0 ? `<a href="/e/${i}">open</a>` : ""}${i % 50 === 0 ? `<button class="b">Save</button>` : ""}</p>`).join("")}</main>`)
}

const percentile = (sorted: ReadonlyArray<number>, p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!
const stats = (samples: Array<number>) => {
  const sorted = [...samples].sort((a, b) => a - b)
  return { p50: Math.round(percentile(sorted, 0.5) * 10) / 10, p95: Math.round(percentile(sorted, 0.95) * 10) / 10 }
}

const server = createServer((request, response) => {
  const page = pages[(request.url ?? "/").slice(1).split("?")[0]]
  if (page === undefined) return void response.writeHead(404).end()
  response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(page)
})
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
const site = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
const loadBefore = loadavg()

const runtime = ManagedRuntime.make(layer({ concurrency: 1, policy: { allowPrivate: false, allowedOrigins: [site] } }) as Layer.Layer<BrowserEngine>)
const render = (url: string, branding: boolean) =>
  runtime.runPromise(BrowserEngine.use((engine) => engine.render({ url, skipTlsVerification: false, mobile: false, waitFor: 0, actions: [], branding }, Date.now() + 60_000)))

interface Row {
  readonly page: string
  readonly elements: number
  readonly render: { p50: number; p95: number }
  readonly renderWithBranding: { p50: number; p95: number }
  readonly script: { p50: number; p95: number }
  readonly profile: { p50: number; p95: number }
}

const rows: Array<Row> = []
await render(`${site}/light`, true) // Chromium's start is not a page's cost.
for (const name of Object.keys(pages)) {
  const plain: Array<number> = []
  const branded: Array<number> = []
  const profile: Array<number> = []
  let elements = 0
  for (let i = 0; i < runs; i++) {
    let t = performance.now()
    await render(`${site}/${name}`, false)
    plain.push(performance.now() - t)
    t = performance.now()
    const page = await render(`${site}/${name}`, true)
    branded.push(performance.now() - t)
    if (page.branding === undefined || "error" in page.branding) throw new Error(`${name}: no samples`)
    const samples = page.branding.samples
    elements = (samples as { elements: Array<unknown> }).elements.length
    t = performance.now()
    if (brandingFromSamples(samples) === undefined) throw new Error(`${name}: samples did not decode`)
    profile.push(performance.now() - t)
  }
  rows.push({ page: name, elements, render: stats(plain), renderWithBranding: stats(branded), script: { p50: 0, p95: 0 }, profile: stats(profile) })
}
await runtime.dispose()

// The script alone, in a page that has loaded.
const browser = await chromium.launch({ executablePath: process.env.STRATA_CHROMIUM_PATH ?? "/usr/bin/chromium", headless: true })
for (const row of rows) {
  const page = await browser.newPage()
  await page.goto(`${site}/${row.page}`, { waitUntil: "load" })
  await sampleBranding(page)
  const samples: Array<number> = []
  for (let i = 0; i < runs; i++) {
    const t = performance.now()
    await sampleBranding(page)
    samples.push(performance.now() - t)
  }
  ;(row as { script: unknown }).script = stats(samples)
  await page.close()
}
await browser.close()
server.close()
const loadAfter = loadavg()

const result = {
  date: new Date().toISOString(),
  runs,
  cpus: cpus().length,
  loadAverage: { before: loadBefore.map((n) => Math.round(n * 100) / 100), after: loadAfter.map((n) => Math.round(n * 100) / 100) },
  rows
}
const table = [
  "| page | elements sampled | render p50 / p95 | render with branding p50 / p95 | difference p50 | script alone p50 / p95 | profile (core) p50 / p95 |",
  "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
  ...rows.map((r) =>
    `| ${r.page} | ${r.elements} | ${r.render.p50} / ${r.render.p95} | ${r.renderWithBranding.p50} / ${r.renderWithBranding.p95} | ${Math.round((r.renderWithBranding.p50 - r.render.p50) * 10) / 10} | ${r.script.p50} / ${r.script.p95} | ${r.profile.p50} / ${r.profile.p95} |`)
].join("\n")
const md = `# branding: ms per page

${result.date} · \`bench/branding/run.ts\` · ${runs} runs a page, renders with and without branding interleaved · ${result.cpus} cores, load average ${result.loadAverage.before.join(" / ")} before and ${result.loadAverage.after.join(" / ")} after (1/5/15 min; the machine is shared).

All times in ms. "render" is the engine's whole render (new context, navigation, smart wait, HTML); "script alone" is the branding script evaluated again in a page that has loaded (fonts already ready, so it waits for nothing); "profile" is core turning the samples into the contract's profile.

${table}

Reading it: on a loaded machine a render varies by a few hundred ms from one run to the next, so the
"difference" column is within that noise for the small pages; the "script alone" column is the
branding's own cost in the page, and the caps per kind of element keep it bounded on a large page.
The profile's p50 over ${runs} runs is mostly a cold JIT (about 3 ms warm for 240 elements).
`
console.log(md)
if (args.includes("--write")) {
  mkdirSync("bench/results", { recursive: true })
  writeFileSync("bench/results/branding.json", JSON.stringify(result, null, 2) + "\n")
  writeFileSync("bench/results/branding.md", md)
}
