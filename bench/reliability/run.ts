/**
 * The reliability run (issue 13, "How it is checked"): every hostile input from Hostile.ts is
 * POSTed to /v2/parse on the real server while Probe.ts hits /health every 100 ms and samples the
 * server tree's RSS. Per input: the answer and its time against the timeout, the longest /health
 * gap, peak RSS, RSS 5 s after the answer against the idle RSS, and whether the server survived.
 * A case has a hard wall (timeout + 30 s); a server stuck past it, or over the RSS cap, is killed,
 * noted and restarted, so the run always ends.
 *
 *   node -C @strata/source bench/reliability/run.ts [--quick] [--only a,b] [--root DIR] [--out BASE] [--label TEXT]
 *     [--timeout-ms N] [--wall-extra-ms N] [--rss-cap-mb N] [--settle-ms N]
 */
import { createHash } from "node:crypto"
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { parseArgs } from "node:util"
import { generate, generators, type HostileInput, plainPdf, type Size, xlsx, docx } from "./Hostile.ts"
import { judge, type Judged, leaksPasswd } from "./Outcome.ts"
import { Probe } from "./Probe.ts"
import { postParse, repoRoot, rssParts, ServerProcess, sleep } from "./ServerProcess.ts"
import { reportMarkdown, type CaseResult } from "./Report.ts"

const { values: args } = parseArgs({
  options: {
    quick: { type: "boolean", default: false },
    only: { type: "string" },
    root: { type: "string" },
    out: { type: "string" },
    label: { type: "string" },
    "wall-extra-ms": { type: "string", default: "30000" },
    "rss-cap-mb": { type: "string", default: "10240" },
    "timeout-ms": { type: "string" },
    "settle-ms": { type: "string", default: "5000" }
  }
})
const size: Size = args.quick ? "quick" : "full"
const wallExtraMs = Number(args["wall-extra-ms"])
const rssCap = Number(args["rss-cap-mb"]) * 1024 * 1024
const settleMs = Number(args["settle-ms"])
const outBase = args.out ?? (args.quick ? join(tmpdir(), "strata-reliability-quick") : join(repoRoot, "bench/results/reliability"))
const MB = 1024 * 1024

/** Generated inputs are kept between runs (the 2.3M-row sheet takes ~16 s to deflate). */
const cacheDir = join(tmpdir(), "strata-reliability-inputs", size)
const sourceHash = createHash("sha1")
  .update(["Hostile.ts", "PdfBytes.ts", "ZipBytes.ts"].map((f) => readFileSync(join(import.meta.dirname, f), "utf8")).join())
  .digest("hex")
  .slice(0, 10)
const cachedInput = async (generator: (typeof generators)[number]): Promise<HostileInput> => {
  const base = join(cacheDir, `${generator.name}-${sourceHash}`)
  if (existsSync(`${base}.json`) && existsSync(`${base}.bin`)) {
    return { ...JSON.parse(readFileSync(`${base}.json`, "utf8")), bytes: readFileSync(`${base}.bin`) }
  }
  const input = await generate(generator, size)
  mkdirSync(cacheDir, { recursive: true })
  writeFileSync(`${base}.bin`, input.bytes)
  writeFileSync(`${base}.json`, JSON.stringify({ ...input, bytes: undefined }))
  return input
}

const logFile = `${outBase}.server.log`
writeFileSync(logFile, "")
const server = new ServerProcess({ ...(args.root === undefined ? {} : { root: args.root }), logFile })

/** The first fatal-looking line the server wrote since its last start (why it died). */
const lastFatal = (): string => {
  const log = readFileSync(logFile, "utf8")
  const since = log.slice(log.lastIndexOf("=== start"))
  const line = since.split("\n").find((l) => /FATAL|out of memory|RangeError|Maximum call stack|Aborted|Segmentation/i.test(l))
  return line === undefined ? "" : line.trim().slice(0, 160)
}

const ensureServer = async (notes: Array<string>): Promise<void> => {
  if (server.alive() && (await server.healthy(3000))) return
  if (server.child !== undefined) {
    notes.push(server.alive() ? "server unresponsive before the case: killed and restarted" : "server restarted (the previous case left it dead)")
    await server.kill()
  }
  await server.start()
}

const runCase = async (input: HostileInput, idle: ReturnType<typeof rssParts>): Promise<CaseResult> => {
  const notes: Array<string> = []
  await ensureServer(notes)
  const probe = new Probe(server.baseUrl, () => server.pid)
  const wall = new AbortController()
  let killedFor: string | undefined
  const wallTimer = setTimeout(() => {
    killedFor = `stuck past the ${((input.timeoutMs + wallExtraMs) / 1000).toFixed(0)} s wall`
    wall.abort()
  }, input.timeoutMs + wallExtraMs)
  const capTimer = setInterval(() => {
    if (probe.rss > rssCap && killedFor === undefined) {
      killedFor = `RSS over the ${(rssCap / MB / 1024).toFixed(0)} GB cap`
      wall.abort()
    }
  }, 100)
  const answers: Array<{ judged: Judged; ms: number; leak: boolean } | { failure: string; ms: number }> = []
  const started = performance.now()
  await Promise.all(
    Array.from({ length: input.concurrency }, async () => {
      try {
        const answer = await postParse(server.baseUrl, input, { timeout: input.timeoutMs }, wall.signal)
        answers.push({ judged: judge(answer.status, answer.body), ms: answer.ms, leak: leaksPasswd(answer.body) })
      } catch (error) {
        const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : ""
        answers.push({ failure: wall.signal.aborted ? "no answer (aborted at wall)" : `connection failed${cause}`, ms: performance.now() - started })
      }
    })
  )
  clearTimeout(wallTimer)
  clearInterval(capTimer)
  const answeredMs = performance.now() - started
  if (killedFor !== undefined && server.alive()) {
    notes.push(`killed: ${killedFor}`)
    await server.kill()
  }
  let survived: CaseResult["survived"] = "yes"
  if (killedFor !== undefined) survived = "stuck (killed)"
  else if (!server.alive()) {
    survived = "died"
    notes.push(`server ${server.exit}${lastFatal() === "" ? "" : `: ${lastFatal()}`}`)
  }
  // Settle: no requests but the probe's, then read RSS.
  if (input.settleMs !== undefined) notes.push(`settled RSS read ${(input.settleMs / 1000).toFixed(0)} s after the answer`)
  if (server.alive()) await sleep(input.settleMs ?? settleMs)
  const settled = server.alive() ? rssParts(server.pid) : { server: 0, children: 0, total: 0 }
  const settledRss = settled.total
  const report = await probe.stop()
  if (survived === "yes") {
    if (!server.alive()) {
      survived = "died"
      const answered = answers.every((a) => !("failure" in a))
      notes.push(`server ${server.exit}${answered ? " after answering" : ""}${lastFatal() === "" ? "" : `: ${lastFatal()}`}`)
    } else if (!(await server.healthy(10_000))) {
      survived = "stuck (killed)"
      notes.push("killed: /health silent for 10 s after the answer")
      await server.kill()
    }
  }
  for (const answer of answers) {
    if ("failure" in answer) notes.push(answer.failure)
    else {
      if (answer.judged.message !== undefined) notes.push(`${answer.judged.label}: ${answer.judged.message.slice(0, 200)}`)
      if (answer.judged.why !== undefined) notes.push(`untyped: ${answer.judged.why}`)
      if (answer.judged.warning !== undefined) notes.push(`warning: ${answer.judged.warning.slice(0, 200)}`)
      if (answer.judged.markdownChars !== undefined) {
        const rows = answer.judged.tableRows ?? 0
        notes.push(`markdown ${answer.judged.markdownChars.toLocaleString("en")} chars${rows > 0 ? `, ${rows.toLocaleString("en")} table rows (header included)` : ""}${answer.judged.warning === undefined ? ", no warning" : ""}`)
      }
      if (answer.leak) notes.push("LEAK: /etc/passwd content in the answer")
    }
  }
  return {
    name: input.name,
    description: input.description,
    fileName: input.fileName,
    bytes: input.bytes.length,
    concurrency: input.concurrency,
    timeoutMs: input.timeoutMs,
    answers: answers.map((a) => ("failure" in a ? { label: a.failure, kind: "none", ms: a.ms } : { label: a.judged.label, kind: a.judged.kind, ms: a.ms })),
    slowestMs: Math.max(answeredMs, ...answers.map((a) => a.ms)),
    withinDeadline: answers.every((a) => !("failure" in a) && a.ms <= input.timeoutMs + 1000),
    longestGapMs: report.longestGapMs,
    peakRssMb: report.peakRss / MB,
    settledRssMb: settledRss / MB,
    settledMinusIdleMb: server.alive() || settledRss > 0 ? (settledRss - idle.total) / MB : undefined,
    settledSplitMb: server.alive() || settledRss > 0
      ? { server: (settled.server - idle.server) / MB, children: (settled.children - idle.children) / MB }
      : undefined,
    survived,
    notes: [...new Set(notes)]
  }
}

/** Ordinary documents of each family, parsed before idle is read so lazily loaded readers count as idle. */
const warmUp = async () => {
  const documents = [
    { fileName: "warm.pdf", bytes: plainPdf(3) },
    { fileName: "warm.docx", bytes: (await docx("<w:p><w:r><w:t>warm</w:t></w:r></w:p>")).bytes },
    { fileName: "warm.xlsx", bytes: (await xlsx(`<?xml version="1.0"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData><row r="1"><c r="A1"><v>1</v></c></row></sheetData></worksheet>`)).bytes },
    { fileName: "warm.html", bytes: Buffer.from("<html><body><h1>warm</h1><p>up</p></body></html>") }
  ]
  for (const document of documents) {
    const answer = await postParse(server.baseUrl, document, { timeout: 30_000 })
    if (answer.status !== 200) process.stderr.write(`warm-up ${document.fileName}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}\n`)
  }
}

const only = args.only?.split(",").map((s) => s.trim())
const selected = generators.filter((g) => only === undefined || only.includes(g.name))
if (selected.length === 0) throw new Error(`--only matched nothing; inputs: ${generators.map((g) => g.name).join(", ")}`)

const runStarted = performance.now()
process.stderr.write(`generating ${selected.length} inputs (${size}) ...\n`)
const inputs: Array<HostileInput> = []
for (const generator of selected) {
  const input = await cachedInput(generator)
  inputs.push(args["timeout-ms"] === undefined ? input : { ...input, timeoutMs: Number(args["timeout-ms"]) })
}

await server.start()
await warmUp()
await sleep(settleMs)
const idle = rssParts(server.pid)
const idleRss = idle.total
process.stderr.write(`server up on ${server.baseUrl}, idle RSS ${(idleRss / MB).toFixed(0)} MB (server ${(idle.server / MB).toFixed(0)}, children ${(idle.children / MB).toFixed(0)})\n`)

const results: Array<CaseResult> = []
for (const input of inputs) {
  process.stderr.write(`${input.name} (${(input.bytes.length / 1024).toFixed(0)} KB) ... `)
  const result = await runCase(input, idle)
  results.push(result)
  process.stderr.write(`${result.answers.map((a) => a.label).join(", ")} in ${(result.slowestMs / 1000).toFixed(1)} s, gap ${result.longestGapMs.toFixed(0)} ms, peak ${result.peakRssMb.toFixed(0)} MB, ${result.survived}\n`)
}
await server.stop()

const meta = {
  date: new Date().toISOString(),
  label: args.label ?? "",
  root: args.root ?? repoRoot,
  size,
  idleRssMb: idleRss / MB,
  idleSplitMb: { server: idle.server / MB, children: idle.children / MB },
  serverStarts: server.starts,
  seconds: (performance.now() - runStarted) / 1000,
  wallExtraMs,
  rssCapMb: rssCap / MB
}
writeFileSync(`${outBase}.json`, `${JSON.stringify({ meta, results }, null, 2)}\n`)
writeFileSync(`${outBase}.md`, reportMarkdown(meta, results))
process.stderr.write(`wrote ${outBase}.md and .json in ${meta.seconds.toFixed(0)} s\n`)
process.exit(0)
