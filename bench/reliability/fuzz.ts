/**
 * The fuzz run (issue 13): fast-check draws mutated seed files (Seeds.ts, Mutation.ts) and each is
 * POSTed to /v2/parse on the real server, `--jobs` at a time. Counted: crashes (the server died
 * with the document in flight), hangs (no answer within timeout + 5 s), untyped errors (Outcome.ts:
 * UNKNOWN_ERROR, no contract shape, internal exception text) and the typed answers and successes.
 * Every failing case is listed with its index, seed file and mutations, and replays with
 * `--replay <index>` under the same `--seed` (the mutated file is also written to /tmp).
 *
 *   node -C @strata/source bench/reliability/fuzz.ts [--runs 10000] [--seed 13] [--jobs 3] [--timeout-ms 10000] [--root DIR] [--out BASE] [--replay N]
 */
import fc from "fast-check"
import { writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { parseArgs } from "node:util"
import { apply, caseArbitrary, describe, type FuzzCase } from "./Mutation.ts"
import { judge } from "./Outcome.ts"
import { fileNameOf, seeds } from "./Seeds.ts"
import { postParse, repoRoot, ServerProcess } from "./ServerProcess.ts"

const { values: args } = parseArgs({
  options: {
    runs: { type: "string", default: "10000" },
    seed: { type: "string", default: "13" },
    jobs: { type: "string", default: "3" },
    "timeout-ms": { type: "string", default: "10000" },
    corpus: { type: "string", default: "30" },
    "max-seed-bytes": { type: "string", default: "100000" },
    root: { type: "string" },
    out: { type: "string" },
    label: { type: "string" },
    replay: { type: "string" }
  }
})
const runs = Number(args.runs)
const fcSeed = Number(args.seed)
const jobs = Number(args.jobs)
const timeoutMs = Number(args["timeout-ms"])
const outBase = args.out ?? join(repoRoot, "bench/results/fuzz")

const seedFiles = await seeds({ corpus: Number(args.corpus), maxBytes: Number(args["max-seed-bytes"]) })
const sources = seedFiles.map((s) => s.bytes)
const all = fc.sample(caseArbitrary(seedFiles.length), { numRuns: args.replay === undefined ? runs : Number(args.replay) + 1, seed: fcSeed })
const indices = args.replay === undefined ? all.map((_, i) => i) : [Number(args.replay)]

type Outcome =
  | { readonly kind: "ok" | "typed" | "untyped"; readonly label: string; readonly detail?: string }
  | { readonly kind: "hang" | "crash" | "other"; readonly label: string; readonly detail?: string }

interface Failure {
  readonly index: number
  readonly seed: string
  readonly mutations: string
  readonly bytes: number
  readonly outcome: Outcome
}

const logFile = `${outBase}.server.log`
writeFileSync(logFile, "")
const server = new ServerProcess({ ...(args.root === undefined ? {} : { root: args.root }), logFile })
await server.start()

let restarting: Promise<void> | undefined
/** One restart at a time; every loop waits for it. */
const restart = (why: string): Promise<void> => {
  restarting ??= (async () => {
    process.stderr.write(`\n${why}: restarting the server\n`)
    await server.kill()
    await server.start()
  })().finally(() => {
    restarting = undefined
  })
  return restarting
}

const runOne = async (fuzzCase: FuzzCase): Promise<Outcome> => {
  if (restarting !== undefined) await restarting
  const bytes = apply(fuzzCase, sources)
  const generation = server.starts
  try {
    const answer = await postParse(server.baseUrl, { bytes, fileName: fileNameOf(seedFiles[fuzzCase.seed]) }, { timeout: timeoutMs }, AbortSignal.timeout(timeoutMs + 5000))
    const judged = judge(answer.status, answer.body)
    return { kind: judged.kind, label: judged.label, ...(judged.kind === "untyped" ? { detail: `${judged.why ?? ""}: ${judged.message ?? ""}`.slice(0, 300) } : {}) }
  } catch (error) {
    const timedOut = error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError")
    if (server.starts !== generation) return { kind: "crash", label: "server restarted while in flight" }
    if (!server.alive()) {
      const exit = server.exit
      await restart(`server ${exit}`)
      return { kind: "crash", label: `server died (${exit})` }
    }
    if (timedOut) {
      if (!(await server.healthy(5000))) await restart("server unresponsive after a hang")
      return { kind: "hang", label: `no answer in ${(timeoutMs + 5000) / 1000} s` }
    }
    const cause = error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error)
    return { kind: "other", label: "request failed", detail: cause.slice(0, 200) }
  }
}

const counts = new Map<string, number>()
const labels = new Map<string, number>()
const failures: Array<Failure> = []
let next = 0
let done = 0
const started = performance.now()
await Promise.all(
  Array.from({ length: Math.min(jobs, indices.length) }, async () => {
    while (next < indices.length) {
      const index = indices[next++]
      const fuzzCase = all[index]
      const outcome = await runOne(fuzzCase)
      counts.set(outcome.kind, (counts.get(outcome.kind) ?? 0) + 1)
      labels.set(`${outcome.kind}: ${outcome.label}`, (labels.get(`${outcome.kind}: ${outcome.label}`) ?? 0) + 1)
      if (outcome.kind !== "ok" && outcome.kind !== "typed") {
        failures.push({ index, seed: seedFiles[fuzzCase.seed].name, mutations: fuzzCase.mutations.map(describe).join(" + "), bytes: apply(fuzzCase, sources).length, outcome })
      }
      if (args.replay !== undefined) {
        const file = join(tmpdir(), `fuzz-${fcSeed}-${index}-${fileNameOf(seedFiles[fuzzCase.seed])}`)
        writeFileSync(file, apply(fuzzCase, sources))
        process.stdout.write(`${JSON.stringify({ index, seed: seedFiles[fuzzCase.seed].name, mutations: fuzzCase.mutations, outcome, file }, null, 2)}\n`)
      }
      if (++done % 100 === 0) process.stderr.write(`${done}/${indices.length} (${(done / ((performance.now() - started) / 1000)).toFixed(1)} docs/s)\r`)
    }
  })
)
const seconds = (performance.now() - started) / 1000
await server.stop()
if (args.replay !== undefined) process.exit(0)

const rate = done / seconds
const count = (kind: string) => counts.get(kind) ?? 0
const meta = { date: new Date().toISOString(), label: args.label ?? "", root: args.root ?? repoRoot, runs, seed: fcSeed, jobs, timeoutMs, seeds: seedFiles.map((s) => ({ name: s.name, bytes: s.bytes.length })), seconds, docsPerSecond: rate, serverStarts: server.starts }
writeFileSync(`${outBase}.json`, `${JSON.stringify({ meta, counts: Object.fromEntries(counts), labels: Object.fromEntries(labels), failures }, null, 2)}\n`)
const cell = (text: string) => text.replace(/\|/g, "\\|").replace(/\n/g, " ")
writeFileSync(
  `${outBase}.md`,
  [
    "# Fuzz: mutated documents against the real server",
    "",
    `${meta.date}${meta.label === "" ? "" : ` · ${meta.label}`} · server root \`${meta.root}\` · ${runs.toLocaleString("en")} documents, fast-check seed ${fcSeed}, ${jobs} at a time, \`timeout\` ${timeoutMs / 1000} s (a hang is no answer in ${(timeoutMs + 5000) / 1000} s) · ${seconds.toFixed(0)} s, ${rate.toFixed(1)} docs/s, so 10,000 documents take about ${(10_000 / rate / 60).toFixed(0)} min · ${server.starts} server start(s).`,
    "",
    "Generated by `bench/reliability/fuzz.ts`. Replay a case: `node -C @strata/source bench/reliability/fuzz.ts --seed " + fcSeed + " --replay <index>`.",
    "",
    "| target | result | met |",
    "| --- | --- | --- |",
    `| 0 crashes | ${count("crash")} | ${count("crash") === 0 ? "yes" : "**no**"} |`,
    `| 0 hangs | ${count("hang")} | ${count("hang") === 0 ? "yes" : "**no**"} |`,
    `| only typed errors | ${count("untyped") + count("other")} untyped | ${count("untyped") + count("other") === 0 ? "yes" : "**no**"} |`,
    "",
    "| outcome | documents |",
    "| --- | ---: |",
    ...[...labels.entries()].toSorted(([, a], [, b]) => b - a).map(([label, n]) => `| ${cell(label)} | ${n} |`),
    "",
    `## Seeds (${seedFiles.length})`,
    "",
    seedFiles.map((s, i) => `${i}: \`${s.name}\` (${s.bytes.length.toLocaleString("en")} B)`).join(" · "),
    "",
    `## Failing cases (${failures.length})`,
    "",
    ...(failures.length === 0
      ? ["None."]
      : ["| index | seed | mutations | bytes | outcome | detail |", "| ---: | --- | --- | ---: | --- | --- |",
        ...failures.toSorted((a, b) => a.index - b.index).slice(0, 200).map((f) => `| ${f.index} | \`${f.seed}\` | ${cell(f.mutations)} | ${f.bytes} | ${f.outcome.kind}: ${cell(f.outcome.label)} | ${cell(f.outcome.detail ?? "")} |`),
        ...(failures.length > 200 ? [``, `(${failures.length - 200} more in fuzz.json)`] : [])]),
    ""
  ].join("\n")
)
process.stderr.write(`\n${done} documents in ${seconds.toFixed(0)} s (${rate.toFixed(1)} docs/s); crashes ${count("crash")}, hangs ${count("hang")}, untyped ${count("untyped") + count("other")}; wrote ${outBase}.md\n`)
process.exit(0)
