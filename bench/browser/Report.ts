/**
 * bench/browser's markdown: the issue's targets with the figures against them, then content per
 * page and mode, latency and throughput per concurrency, where the time goes, RSS, the leak
 * readings and the crash trials.
 */
import { DOM_QUIET_MS, NETWORK_QUIET_MS, SMART_WAIT_MAX_MS } from "../../packages/browser/src/SmartWait.ts"

export interface Results {
  readonly meta: {
    readonly date: string
    readonly quick: boolean
    readonly runs: number
    readonly contentPasses: number
    readonly pages: number
    readonly jsPages: number
    readonly node: string
    readonly chromium: string
    readonly cores: number
    readonly memoryGb: number
    readonly loadAverages: ReadonlyArray<{ readonly at: string; readonly load: ReadonlyArray<number> }>
    readonly seconds: number
    readonly leakLanes: number
    readonly commit: string
  }
  readonly pages: ReadonlyArray<{ readonly name: string; readonly kind: string; readonly js: boolean; readonly path: string; readonly sentences: number; readonly beyond: number }>
  readonly content: ReadonlyArray<{ readonly page: string; readonly mode: string; readonly found: number; readonly of: number; readonly beyond: number; readonly engine?: string | undefined; readonly status?: number; readonly ms: number; readonly error: string }>
  readonly latency: ReadonlyArray<{ readonly system: string; readonly concurrency: number; readonly run: number; readonly p50: number; readonly p95: number; readonly pagesPerSecond: number; readonly totalMs: number; readonly sumMs: number; readonly failures: number; readonly missed?: ReadonlyArray<string>; readonly perPage: Readonly<Record<string, number>>; readonly cpu: { readonly node: number; readonly chromium: number } }>
  readonly rss: { readonly beforeBrowserMb: number; readonly peakMb: number; readonly peakBareMb: number }
  readonly leak: { readonly at: number; readonly to: number; readonly readings: ReadonlyArray<{ readonly after: number; readonly rssMb: number }>; readonly failures: number; readonly seconds: number; readonly pages: ReadonlyArray<string> }
  readonly crashes: ReadonlyArray<{ readonly mode: string; readonly killed: number; readonly answer: { readonly status: number; readonly ms: number; readonly engine: string | undefined; readonly error: string; readonly warning?: string | undefined }; readonly longestHealthGapMs: number; readonly healthFailures: number; readonly next: { readonly status: number; readonly engine: string | undefined; readonly found: number; readonly of: number; readonly ms: number; readonly error: string } }>
  readonly server: { readonly alive: boolean; readonly starts: number }
  /** The phases finished, in order ("end" once the run is complete). */
  readonly done: ReadonlyArray<string>
}

const med = (values: ReadonlyArray<number>): number => {
  if (values.length === 0) return NaN
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.ceil(sorted.length / 2) - 1]
}
const mark = (ok: boolean) => (ok ? "yes" : "**no**")
const ms = (value: number) => (Number.isNaN(value) ? "–" : `${value.toFixed(0)} ms`)
const cell = (text: string) => text.replace(/\|/g, "\\|").replace(/\n/g, " ")
const modes = ["fetch", "forced", "auto", "bare-simple", "bare-content"] as const
const modeTitle: Record<(typeof modes)[number] | "bare-idle", string> = {
  fetch: "fetch engine only",
  forced: "browser forced",
  auto: "automatic choice",
  "bare-simple": "bare Playwright (load)",
  "bare-content": "bare Playwright (waits for the text)",
  "bare-idle": "bare Playwright (networkidle)"
}

export const reportMarkdown = (r: Results): string => {
  const rows = (page: string, mode: string) => r.content.filter((c) => c.page === page && c.mode === mode)
  /** Every sentence in every pass. */
  const complete = (page: string, mode: string) => {
    const all = rows(page, mode)
    return all.length > 0 && all.every((c) => c.found === c.of)
  }
  const share = (mode: string, js: boolean) => {
    const group = r.pages.filter((p) => p.js === js)
    return { ok: group.filter((p) => complete(p.name, mode)).length, of: group.length }
  }
  const jsAuto = share("auto", true)
  const controlsFetch = r.pages.filter((p) => !p.js).every((p) => complete(p.name, "auto") && rows(p.name, "auto").every((c) => c.engine === "fetch"))
  const lat = (system: string, concurrency: number) => r.latency.filter((l) => l.system === system && l.concurrency === concurrency)
  const ratio = (against: string, concurrency: number) => {
    const ratios = lat("strata", concurrency).map((s) => {
      const b = r.latency.find((l) => l.system === against && l.concurrency === concurrency && l.run === s.run)
      return b === undefined ? NaN : s.sumMs / b.sumMs
    })
    return med(ratios)
  }
  const throughputRatio = (against: string, concurrency: number) => {
    const ratios = lat("strata", concurrency).map((s) => {
      const b = r.latency.find((l) => l.system === against && l.concurrency === concurrency && l.run === s.run)
      return b === undefined ? NaN : b.pagesPerSecond / s.pagesPerSecond
    })
    return med(ratios)
  }
  const overhead = ratio("bare-content", 1)
  const overheadSimple = ratio("bare-simple", 1)
  const first = r.leak.readings.find((x) => x.after === r.leak.at)
  const last = r.leak.readings.find((x) => x.after === r.leak.to)
  const growth = first !== undefined && last !== undefined ? last.rssMb - first.rssMb : NaN
  const crashOk = r.crashes.filter((c) => c.next.status === 200 && c.next.found === c.next.of && c.healthFailures === 0)
  const forcedClear = r.crashes.filter((c) => c.mode === "forced").every((c) => c.answer.status >= 400 && c.answer.error !== "")
  const serverDeaths = r.server.starts - 1 + (r.server.alive ? 0 : 1)
  const perPageMedian = (system: string, page: string) => med(lat(system, 1).map((l) => l.perPage[page]).filter((x) => x !== undefined))
  const contentMs = (mode: string, page: string) => med(rows(page, mode).map((c) => c.ms))

  const lines = [
    "# Browser engine: JavaScript pages through the real server",
    "",
    ...(r.done.includes("end") ? [] : [`**Incomplete run**: finished phases: ${r.done.join(", ") || "none"}. The figures below are what those phases measured.`, ""]),
    `${r.meta.date} · commit ${r.meta.commit} · ${r.meta.quick ? "**quick** (a subset, one run)" : "full"} · ${r.meta.pages} pages (${r.meta.jsPages} need JavaScript) · ${r.meta.runs} latency run(s), ${r.meta.contentPasses} content pass(es) · Node ${r.meta.node}, Chromium ${r.meta.chromium} (Debian, /usr/bin/chromium) · ${r.meta.cores} cores, ${r.meta.memoryGb.toFixed(0)} GB · ${r.meta.seconds.toFixed(0)} s in all.`,
    "",
    `Load average (1, 5, 15 min) during the run, on a machine shared with other work: ${r.meta.loadAverages.map((l) => `${l.at} ${l.load.join(" / ")}`).join("; ")}. Absolute times move with that load; the ratios are taken run by run, Strata and the bare loop alternating, so both sides see the same load.`,
    "",
    "Generated by `bench/browser/run.ts` (pages from `bench/browser/Pages.ts`; see its README). Every scrape is `POST /v2/scrape` with a fresh query string on the URL (no cache hit) and default options: markdown, main content only.",
    "",
    "## Targets",
    "",
    "| target | result | met |",
    "| --- | --- | --- |",
    (() => {
      const strataRuns = r.latency.filter((l) => l.system === "strata")
      const scrapes = strataRuns.length * r.meta.jsPages
      const missed = strataRuns.flatMap((l) => l.missed ?? [])
      const again = scrapes === 0 ? "" : `; again in the latency runs (every concurrency): ${scrapes - missed.length} / ${scrapes} scrapes complete${missed.length === 0 ? "" : ` (missing: ${[...new Set(missed)].join(", ")})`}`
      return `| every JavaScript page's content through the automatic choice | ${jsAuto.ok} / ${jsAuto.of} pages complete in the content pass${again} | ${mark(jsAuto.ok === jsAuto.of && missed.length === 0)} |`
    })(),
    `| static controls stay on the fetch engine with their content | ${controlsFetch ? "all" : "not all"} | ${mark(controlsFetch)} |`,
    Number.isNaN(overhead)
      ? "| overhead at most 1.3x a bare Playwright loop | not run | – |"
      : `| overhead at most 1.3x a bare Playwright loop | ${overhead.toFixed(2)}x the loop that waits for the text, ${overheadSimple.toFixed(2)}x the plain \`goto\` + \`content()\` loop (summed latency at 1 request at a time, median of runs); ${ratio("bare-idle", 1).toFixed(2)}x the loop with Playwright's \`networkidle\` wait | ${mark(overhead <= 1.3)} |`,
    Number.isNaN(growth)
      ? `| no RSS growth between ${r.leak.at} and ${r.leak.to} scrapes beyond noise | not run to the end (${r.leak.readings.map((x) => `${x.after}: ${x.rssMb.toFixed(0)} MB`).join(", ") || "no reading"}) | – |`
      : `| no RSS growth between ${r.leak.at} and ${r.leak.to} scrapes beyond noise (50 MB) | ${first?.rssMb.toFixed(0) ?? "?"} MB → ${last?.rssMb.toFixed(0) ?? "?"} MB (${growth >= 0 ? "+" : ""}${growth.toFixed(0)} MB; readings in between: ${r.leak.readings.filter((x) => x !== first && x !== last).map((x) => `${x.rssMb.toFixed(0)}`).join(", ") || "none"}) | ${mark(growth <= 50)} |`,
    r.crashes.length === 0
      ? `| 0 crashes; the server answers after Chromium is killed mid-request | ${serverDeaths} server death(s); no kill trial run | – |`
      : `| 0 crashes; the server answers after Chromium is killed mid-request | ${serverDeaths} server death(s); ${crashOk.length} / ${r.crashes.length} kills followed by a working scrape with /health always answering; the in-flight forced render ${forcedClear ? "got a clear error" : "did **not** always get a clear error"} | ${mark(serverDeaths === 0 && crashOk.length === r.crashes.length && forcedClear)} |`,
    "",
    "## Content: the share of pages whose sentences come back",
    "",
    "A page counts when every one of its sentences is in the markdown (Strata) or in the text of `page.content()` (bare loop) in every pass. \"fetch engine only\" is a second server with `STRATA_BROWSER=off`; \"browser forced\" sends `waitFor: 1`; \"automatic choice\" sends no option.",
    "",
    "| | " + modes.map((m) => modeTitle[m]).join(" | ") + " |",
    "| --- | " + modes.map(() => "---:").join(" | ") + " |",
    `| JavaScript pages | ${modes.map((m) => { const s = share(m, true); return `${s.ok} / ${s.of}` }).join(" | ")} |`,
    `| static controls | ${modes.map((m) => { const s = share(m, false); return `${s.ok} / ${s.of}` }).join(" | ")} |`,
    "",
    "Per page: sentences found (the worst pass) and, for Strata, the engine that served it.",
    "",
    "| page | kind | " + modes.map((m) => modeTitle[m]).join(" | ") + " |",
    "| --- | --- | " + modes.map(() => ":---:").join(" | ") + " |",
    ...r.pages.map((p) => `| ${p.name}${p.js ? "" : " (control)"} | ${cell(p.kind)} | ${modes.map((m) => {
      const all = rows(p.name, m)
      if (all.length === 0) return "–"
      const worst = all.reduce((a, b) => (b.found < a.found ? b : a))
      const engines = [...new Set(all.map((c) => c.engine).filter((e) => e !== undefined))].join("/")
      const text = `${worst.found}/${worst.of}${engines === "" ? "" : ` ${engines}`}`
      return worst.found === worst.of ? text : `**${text}**`
    }).join(" | ")} |`),
    "",
    ...(r.pages.some((p) => p.beyond > 0)
      ? [`Only scrolling loads the rest of an infinite feed; no mode scrolls unless asked to (the \`scroll\` action does): ${r.pages.filter((p) => p.beyond > 0).map((p) => `${p.name}: ${Math.max(0, ...rows(p.name, "auto").map((c) => c.beyond))} of ${p.beyond} scroll-only sentences through the automatic choice`).join("; ")}.`, ""]
      : []),
    ...(() => {
      const errors = r.content.filter((c) => c.error !== "")
      return errors.length === 0 ? [] : ["Errors:", "", ...errors.map((c) => `- ${c.page} (${c.mode}): ${cell(c.error)}`), ""]
    })(),
    "## Latency and throughput on the JavaScript pages",
    "",
    `Each run sends the ${r.meta.jsPages} JavaScript pages once at the given concurrency; p50 and p95 are over that run's requests, pages/s is pages over the run's wall time, and each figure is the median over runs. Strata uses the automatic choice (it fetches the page, sees it needs JavaScript, renders it). The server renders at most \`STRATA_BROWSER_CONCURRENCY\` pages at once (default: 2 per core, 1 per 512 MB); the bare loop has no bound.`,
    "",
    "| concurrency | system | runs | p50 | p95 | pages/s | pages missing content (median) | time ratio Strata / this |",
    "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ...[1, 4, 8].flatMap((c) => ["strata", "bare-simple", "bare-content", "bare-idle"].flatMap((system) => {
      const runs = lat(system, c)
      if (runs.length === 0) return system === "bare-idle" ? [] : [`| ${c} | ${system} | 0 | – | – | – | – | – |`]
      return [`| ${c} | ${system === "strata" ? "Strata (automatic)" : modeTitle[system as "bare-simple"]} | ${runs.length} | ${ms(med(runs.map((l) => l.p50)))} | ${ms(med(runs.map((l) => l.p95)))} | ${med(runs.map((l) => l.pagesPerSecond)).toFixed(2)} | ${med(runs.map((l) => l.failures))} | ${system === "strata" ? "" : `${(c === 1 ? ratio(system, c) : throughputRatio(system, c)).toFixed(2)}x`} |`]
    })),
    "",
    "At 1 request at a time the ratio is summed latency; at 4 and 8 it is throughput (bare pages/s over Strata's).",
    "",
    "CPU per page (user + system, median of runs): the machine has few cores, so at 4 and 8 at once throughput is bound by CPU. Most of a page's CPU is Chromium's own, whoever drives it: a new context, page, navigation and close of a static page measured ~0.9-1.0 s of Chromium CPU (browser process ~0.4 s, the page's renderer ~0.5 s) in a bare loop on this machine, and an open page's renderer keeps burning CPU while it stays open (~11% of a core when idle, more in its first second), so the time the smart wait holds a page open is the part Strata adds. Strata's is the server's tree: its Node processes (the server: HTTP, fetch, SSRF proxy, markdown; the reader process) and Chromium; the bare loop's is the bench process (Playwright's client, and the fixture server both share) and its Chromium.",
    "",
    "| concurrency | system | Node CPU per page | Chromium CPU per page | total |",
    "| ---: | --- | ---: | ---: | ---: |",
    ...[1, 4, 8].flatMap((c) => ["strata", "bare-simple", "bare-content", "bare-idle"].flatMap((system) => {
      const runs = lat(system, c)
      if (runs.length === 0) return []
      const node = med(runs.map((l) => l.cpu.node / r.meta.jsPages)) * 1000
      const chromium = med(runs.map((l) => l.cpu.chromium / r.meta.jsPages)) * 1000
      return [`| ${c} | ${system === "strata" ? "Strata (automatic)" : modeTitle[system as "bare-simple"]} | ${ms(node)} | ${ms(chromium)} | ${ms(node + chromium)} |`]
    })),
    "",
    "### Where the time goes (1 request at a time, median per page)",
    "",
    `"automatic" and the two bare columns are the latency runs' medians; "forced" (the browser asked for by \`waitFor: 1\`, no fetch first) and "fetch only" (the fetch engine's whole scrape, on the other server) come from the content pass, one request each. automatic − forced is the cost of fetching first and finding the page needs JavaScript; forced − bare (waits for the text) is the smart wait (network quiet ${NETWORK_QUIET_MS} ms and DOM unchanged ${DOM_QUIET_MS} ms, quiet from before the wait counting, bounded at ${SMART_WAIT_MAX_MS / 1000} s), ad blocking (every request matched against the lists at Playwright's route), the SSRF proxy (with its credential, which turns on Playwright's interception of every request) and the markdown. The context, its page and the user-agent set-up are made ahead, as a spare, while the page before it settles (PlaywrightEngine.ts; \`bench/browser/phases.ts\` times every step); a request that finds its spare still being made waits for it. Playwright's own "networkidle" (no request for 500 ms) is the bare loop with a generic wait of the same kind: the part of the overhead any wait that does not know the answer pays.`,
    "",
    "| page | automatic | forced | fetch only | bare (load) | bare (waits for the text) | bare (networkidle) | automatic / bare (text) |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ...r.pages.filter((p) => p.js).map((p) => {
      const auto = perPageMedian("strata", p.name)
      const bareText = perPageMedian("bare-content", p.name)
      return `| ${p.name} | ${ms(auto)} | ${ms(contentMs("forced", p.name))} | ${ms(contentMs("fetch", p.name))} | ${ms(perPageMedian("bare-simple", p.name))} | ${ms(bareText)} | ${ms(perPageMedian("bare-idle", p.name))} | ${(auto / bareText).toFixed(2)}x |`
    }),
    (() => {
      const js = r.pages.filter((p) => p.js).map((p) => p.name)
      const sum = (system: string) => js.reduce((a, n) => a + (perPageMedian(system, n) || 0), 0)
      const fetchSum = js.reduce((a, n) => a + (contentMs("fetch", n) || 0), 0)
      const forcedSum = js.reduce((a, n) => a + (contentMs("forced", n) || 0), 0)
      return `| **sum** | ${ms(sum("strata"))} | ${ms(forcedSum)} | ${ms(fetchSum)} | ${ms(sum("bare-simple"))} | ${ms(sum("bare-content"))} | ${ms(sum("bare-idle"))} | ${(sum("strata") / sum("bare-content")).toFixed(2)}x |`
    })(),
    "",
    "## Memory",
    "",
    `- Server tree before Chromium started: ${r.rss.beforeBrowserMb.toFixed(0)} MB. Peak of the server tree (server, reader processes, Chromium and its renderers), sampled every 100 ms over the whole run at up to 8 concurrent scrapes: **${r.rss.peakMb.toFixed(0)} MB**.`,
    `- For comparison, the bench process with the bare loop's Chromium peaked at ${r.rss.peakBareMb.toFixed(0)} MB (it renders without a bound at 8 concurrent pages).`,
    `- Leak check: settled RSS (median of 10 samples over 2 s, after 3 s idle) after each count of scrapes (automatic choice, cycling over ${r.leak.pages.length} JavaScript pages; the first ${r.leak.at} one at a time, the rest ${r.meta.leakLanes === 1 ? "one at a time too" : `${r.meta.leakLanes} at a time`}; ${r.leak.failures} failed; ${r.leak.seconds.toFixed(0)} s): ${r.leak.readings.map((x) => `${x.after}: ${x.rssMb.toFixed(0)} MB`).join(", ")}.`,
    "",
    "## Crash: Chromium SIGKILLed mid-request",
    "",
    "A render is held in flight by an API that answers after 6 s; 1.5 s in, every Chromium process in the server's tree gets SIGKILL. /health is probed every 100 ms from just before the request to 1 s after its answer; then a JavaScript page is scraped.",
    "",
    "| request in flight | processes killed | its answer | longest /health gap | /health failures | next scrape |",
    "| --- | ---: | --- | ---: | ---: | --- |",
    ...r.crashes.map((c) => `| ${c.mode === "forced" ? "browser forced (`waitFor: 1`)" : "automatic choice"} | ${c.killed} | ${c.answer.status} ${c.answer.engine === undefined ? "" : `(engine ${c.answer.engine}) `}${cell(c.answer.error)}${c.answer.warning === undefined ? (c.answer.status === 200 ? "no warning" : "") : `warning: ${cell(c.answer.warning)}`} in ${ms(c.answer.ms)} | ${ms(c.longestHealthGapMs)} | ${c.healthFailures} | ${c.next.status} ${c.next.engine ?? ""}, ${c.next.found}/${c.next.of} sentences, ${ms(c.next.ms)}${c.next.error === "" ? "" : ` ${cell(c.next.error)}`} |`),
    "",
    `Server starts in the whole run: ${r.server.starts} (1 means it never died); alive at the end: ${r.server.alive ? "yes" : "**no**"}.`,
    ""
  ]
  return lines.join("\n")
}
