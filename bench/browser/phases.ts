/**
 * One render cut into phases, beside the bare loop's goto + content() on the same pages. The
 * engine's steps are copied here from `PlaywrightEngine.ts` in their order (context with its
 * options, init script, ad-block route, page, user-agent probe and CDP override, document
 * capture, goto, smart wait, composed HTML, markdown, close) so that each can be timed and
 * switched off: what `run.ts` reports as the overhead is then split by where it goes. Chromium
 * CPU per render is read from /proc (this process's Chromium children, reaped ones included).
 * Variants alternate page by page, so the shared machine's load falls on all alike.
 *
 *   node_modules/.bin/node -C @strata/source bench/browser/phases.ts [--rounds N] [--only a,b] [--variants engine,bare,...]
 */
import { processHtml } from "@strata/core"
import { Effect, Exit, Scope } from "effect"
import { loadavg } from "node:os"
import { parseArgs } from "node:util"
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core"
import { buildAdBlocker } from "../../packages/browser/src/AdBlock.ts"
import { composedHtml } from "../../packages/browser/src/ComposedHtml.ts"
import { captureDocuments } from "../../packages/browser/src/DocumentCapture.ts"
import { desktopOptions } from "../../packages/browser/src/Emulation.ts"
import { startGuardProxy } from "../../packages/browser/src/GuardProxy.ts"
import { mutationClockScript, NetworkTracker, settle, SMART_WAIT_MAX_MS } from "../../packages/browser/src/SmartWait.ts"
import { found, htmlText, median, words } from "./Check.ts"
import { chromiumCpuMs } from "./ChromiumCpu.ts"
import { startFixtureServer } from "./FixtureServer.ts"
import { corpus } from "./Pages.ts"

const { values: args } = parseArgs({ options: { rounds: { type: "string" }, only: { type: "string" }, variants: { type: "string" } } })
const rounds = Number(args.rounds ?? 3)
const chromiumPath = process.env.STRATA_CHROMIUM_PATH ?? "/usr/bin/chromium"
const defaultPages = ["inline-inject", "react-like-root", "fetch-json", "chained-requests", "timeout-300", "hash-router", "shadow-dom", "external-bundle"]
const only = new Set(args.only === undefined ? defaultPages : args.only.split(","))
const pages = corpus().filter((p) => only.has(p.name))
const fixtures = await startFixtureServer(corpus())
const urlOf = fixtures.url

const chromiumArgs = ["--disable-dev-shm-usage", "--force-webrtc-ip-handling-policy=disable_non_proxied_udp", "--webrtc-ip-handling-policy=disable_non_proxied_udp", "--disable-background-networking", "--no-first-run", "--mute-audio"]
const scope = await Effect.runPromise(Scope.make())
const proxy = await Effect.runPromise(Scope.provide(startGuardProxy({ allowPrivate: true }), scope))
const proxied = await chromium.launch({ executablePath: chromiumPath, headless: true, args: chromiumArgs, proxy: { server: proxy.url, ...proxy.credentials } })
const plain = await chromium.launch({ executablePath: chromiumPath, headless: true, args: ["--disable-dev-shm-usage"] })
const blocker = buildAdBlocker()

interface Switches {
  readonly browser: Browser
  readonly route: boolean
  readonly capture: boolean
  readonly uaProbe: boolean
  readonly initScript: boolean
  readonly wait: "smart" | "load"
  readonly closePageFirst: boolean
}
const engine = (over: Partial<Switches> = {}): Switches => ({ browser: proxied, route: true, capture: true, uaProbe: true, initScript: true, wait: "smart", closePageFirst: false, ...over })
const allVariants: Record<string, Switches | "bare"> = {
  engine: engine(),
  bare: "bare",
  "no route": engine({ route: false }),
  "no proxy": engine({ browser: plain }),
  "no proxy or route": engine({ browser: plain, route: false }),
  "no capture": engine({ capture: false }),
  "no ua probe": engine({ uaProbe: false }),
  "page closed first": engine({ closePageFirst: true })
}
const variantNames = args.variants === undefined ? ["engine", "bare"] : args.variants.split(",")

type Phases = Record<string, number>
const timed = async <A>(phases: Phases, name: string, call: () => Promise<A>): Promise<A> => {
  const t0 = performance.now()
  try {
    return await call()
  } finally {
    phases[name] = (phases[name] ?? 0) + performance.now() - t0
  }
}

const renderEngine = async (s: Switches, url: string): Promise<{ phases: Phases; html: string }> => {
  const phases: Phases = {}
  const context: BrowserContext = await timed(phases, "context", () =>
    s.browser.newContext({ ...desktopOptions(s.browser.version()), locale: "en-US", extraHTTPHeaders: {}, ignoreHTTPSErrors: false, serviceWorkers: "block", acceptDownloads: true }))
  if (s.initScript) await timed(phases, "context", () => context.addInitScript(mutationClockScript))
  if (s.route) {
    await timed(phases, "route", () => context.route("**/*", (route) => {
      const sent = route.request()
      const frame = sent.frame()
      if (sent.isNavigationRequest() && frame.parentFrame() === null) return route.fallback()
      const source = frame.url()
      return blocker.blocks(sent.url(), sent.resourceType(), source.startsWith("http") ? source : url) ? route.abort("blockedbyclient") : route.fallback()
    }))
  }
  const page: Page = await timed(phases, "page", () => context.newPage())
  const network = new NetworkTracker(page)
  if (s.uaProbe) {
    await timed(phases, "ua + cdp", async () => {
      const userAgent = (await page.evaluate("navigator.userAgent")) as string
      const session = await context.newCDPSession(page)
      await session.send("Emulation.setUserAgentOverride", { userAgent, acceptLanguage: "en-US,en" })
      if (s.capture) await captureDocuments(session)
    })
  }
  await timed(phases, "goto", () => page.goto(url, { waitUntil: s.wait === "smart" ? "domcontentloaded" : "load", timeout: 30_000 }))
  if (s.wait === "smart") await timed(phases, "smart wait", () => Effect.runPromise(settle(page, network, SMART_WAIT_MAX_MS, Date.now() + 30_000)))
  const html = await timed(phases, "content", () => composedHtml(page))
  if (s.closePageFirst) await timed(phases, "close", () => page.close())
  await timed(phases, "close", () => context.close())
  const t0 = performance.now()
  processHtml(html, { url, onlyMainContent: true, removeBase64Images: true, formats: { markdown: true, html: false, links: false } })
  phases.markdown = performance.now() - t0
  return { phases, html }
}

const renderBare = async (url: string): Promise<{ phases: Phases; html: string }> => {
  const phases: Phases = {}
  const context = await timed(phases, "context", () => plain.newContext())
  const page = await timed(phases, "page", () => context.newPage())
  await timed(phases, "goto", () => page.goto(url, { waitUntil: "load", timeout: 30_000 }))
  const html = await timed(phases, "content", () => page.content())
  await timed(phases, "close", () => context.close())
  return { phases, html }
}

interface Sample { phases: Phases; total: number; cpu: number; ok: boolean }
const samples = new Map<string, Array<Sample>>(variantNames.map((n) => [n, []]))
// A first render on each browser outside the figures.
await renderEngine(engine(), urlOf(pages[0].path))
await renderBare(urlOf(pages[0].path))
await renderEngine(engine({ browser: plain }), urlOf(pages[0].path))
const loads = [loadavg()]
for (let round = 0; round < rounds; round++) {
  for (const page of pages) {
    const order = variantNames.map((_, k) => variantNames[(k + round) % variantNames.length])
    for (const name of order) {
      const variant = allVariants[name]
      const cpu0 = chromiumCpuMs()
      const t0 = performance.now()
      const { phases, html } = variant === "bare" ? await renderBare(urlOf(page.path)) : await renderEngine(variant, urlOf(page.path))
      const total = performance.now() - t0
      // Let the closed context's processes go before the CPU is read (their time is reaped into the browser's).
      await new Promise((r) => setTimeout(r, 150))
      ;(samples.get(name) as Array<Sample>).push({ phases, total, cpu: chromiumCpuMs() - cpu0, ok: found(words(htmlText(html)), page.sentences) === page.sentences.length })
    }
  }
  loads.push(loadavg())
  process.stderr.write(`round ${round + 1}/${rounds}, load ${loadavg().map((x) => x.toFixed(2)).join(" ")}\n`)
}

const phaseNames = ["context", "route", "page", "ua + cdp", "goto", "smart wait", "content", "close", "markdown"]
const sum = (xs: Array<number>) => xs.reduce((a, b) => a + b, 0)
const baseline = samples.get(variantNames[0]) as Array<Sample>
const lines = [
  `${pages.length} pages x ${rounds} rounds, variants alternating page by page; load average ${loads.map((l) => l.map((x) => x.toFixed(1)).join("/")).join(" -> ")}. Mean ms per render (phase columns), summed total, Chromium CPU per render.`,
  "",
  `| variant | ${phaseNames.join(" | ")} | total (mean) | total / ${variantNames[0]} | Chromium CPU | CPU / ${variantNames[0]} | content complete |`,
  `| --- | ${phaseNames.map(() => "---:").join(" | ")} | ---: | ---: | ---: | ---: | ---: |`,
  ...variantNames.map((name) => {
    const s = samples.get(name) as Array<Sample>
    const mean = (xs: Array<number>) => sum(xs) / xs.length
    return `| ${name} | ${phaseNames.map((p) => mean(s.map((x) => x.phases[p] ?? 0)).toFixed(0)).join(" | ")} | ${mean(s.map((x) => x.total)).toFixed(0)} | ${(sum(s.map((x) => x.total)) / sum(baseline.map((x) => x.total))).toFixed(2)}x | ${mean(s.map((x) => x.cpu)).toFixed(0)} | ${(sum(s.map((x) => x.cpu)) / sum(baseline.map((x) => x.cpu))).toFixed(2)}x | ${s.filter((x) => x.ok).length} / ${s.length} |`
  }),
  "",
  "Per page, median total ms:",
  "",
  `| page | ${variantNames.join(" | ")} |`,
  `| --- | ${variantNames.map(() => "---:").join(" | ")} |`,
  ...pages.map((page, i) => `| ${page.name} | ${variantNames.map((n) => median((samples.get(n) as Array<Sample>).filter((_, k) => k % pages.length === i).map((x) => x.total)).toFixed(0)).join(" | ")} |`)
]
process.stdout.write(`${lines.join("\n")}\n`)
await proxied.close()
await plain.close()
await Effect.runPromise(Scope.close(scope, Exit.void))
await fixtures.close()
process.exit(0)
