/**
 * The `strata` command line: `scrape <url>`, `parse <file>`, `parse <dir|glob> --out <dir>`,
 * `serve`. It runs the same pipeline as the server, in-process, and prints markdown (or the
 * whole `data` as JSON); a batch writes one file per document (see Batch.ts). `keys` and `teams`
 * manage accounts in the server's store (Accounts.ts); `catalog` records the provider terms an
 * administrator accepts (CatalogTerms.ts). `parse ... --queue`, `worker` and `runs` spread a batch
 * over a fleet of worker processes on a shared Postgres (Fleet.ts).
 */
import { readFile, stat } from "node:fs/promises"
import { basename } from "node:path"
import { parseArgs } from "node:util"
import { defaultConcurrency, FAILURES_FILE, runBatch } from "./Batch.ts"
import { isGlob } from "./Inputs.ts"
import { render } from "./Render.ts"

export const USAGE = `Usage:
  strata scrape <url>   [--formats markdown,html,rawHtml,links,rawBase64] [--json] [--all-content]
                        [--include-tags sel,sel] [--exclude-tags sel,sel] [--timeout ms] [--header "Name: value"]...
                        [--page-markers] [--pages] [--blocks] [--max-pages N] [--mode fast|auto|ocr]
  strata parse <file>   (the same options, for a local document)
  strata parse <dir|glob|file>... --out <dir> [--concurrency N] [--force]   (the same options, for each document)
  strata parse <dir|glob|@list-file>... --out <dir> --queue [--wait]   record a corpus run and queue it for workers
  strata worker [--slots N] [--health-port P]   convert queued documents, N at once (default: one per core), until SIGTERM
  strata runs show <run id> [--json] [--watch]   a corpus run's progress, throughput, ETA and failures
  strata serve          start the HTTP server (HOST, PORT, STRATA_API_KEYS, STRATA_DATA_DIR, STRATA_DATABASE_URL)
  strata keys create --team <team> | keys revoke <key id> | keys list --team <team>
  strata teams set <team> [--credits N] [--rate-limit R] [--concurrency C] [--zdr on|off] [--catalog on|off] [--audit <sink>]
  strata teams show <team> | teams list      (strata keys --help for the details)
  strata catalog accept-terms <provider> --team <team> [--version V] | catalog terms --team <team>

Without --json, prints the first requested text format (markdown by default).

Batch: a directory is walked recursively for supported documents (.pdf .docx .doc .docm .odt .ods
.odp .rtf .xlsx .xls .xlsm .xlsb .pptx .ppt .pptm .epub .csv .html .htm .xhtml); quote a glob
("docs/**/*.pdf") to let strata expand it. Each document becomes <out>/<relative path>.md (and
.json with the whole data under --json). --concurrency: documents in flight (default ${defaultConcurrency()}).
A rerun skips documents whose outputs are newer than the input (--force converts them again).
Failures are listed in <out>/${FAILURES_FILE}, one JSON line each, and do not stop the run.

Fleet (--queue, worker, runs need STRATA_DATABASE_URL): a queued run is converted by any number of
strata worker processes that see the same input and output paths. Running the same command again
resumes it: finished documents are skipped and failed ones are sent again. An @list-file names
one file, directory or glob a line. --health-port (or STRATA_WORKER_HEALTH_PORT; host
STRATA_WORKER_HEALTH_HOST, default 127.0.0.1) serves a worker's /health, /ready and /metrics.
A server with STRATA_DATABASE_URL set sends PDFs over STRATA_QUEUE_ABOVE_PAGES pages (default 50)
uploaded to /v2/parse to the workers, which take them before corpus documents.

Exit codes: 0 success (in a batch: every document converted or skipped), 1 failure (in a batch:
at least one document failed), 2 usage error.`

export interface Io {
  readonly out: (text: string) => void
  readonly err: (text: string) => void
  /** Raw writes to stderr, present only when stderr is a terminal: batch progress draws a bar there. */
  readonly tty?: ((text: string) => void) | undefined
}

const list = (value: string | undefined): Array<string> | undefined =>
  value === undefined ? undefined : value.split(",").map((s) => s.trim()).filter((s) => s.length > 0)

/** Builds the contract's options object from the command line flags. */
export const optionsFromFlags = (values: Record<string, unknown>, forUpload: boolean): Record<string, unknown> => {
  const options: Record<string, unknown> = {}
  const formats = list(values.formats as string | undefined)
  if (formats) options.formats = formats
  if (values["all-content"]) options.onlyMainContent = false
  const include = list(values["include-tags"] as string | undefined)
  if (include) options.includeTags = include
  const exclude = list(values["exclude-tags"] as string | undefined)
  if (exclude) options.excludeTags = exclude
  if (values.timeout !== undefined) options.timeout = Number(values.timeout)
  const headers = values.header as Array<string> | undefined
  if (!forUpload && headers && headers.length > 0) {
    options.headers = Object.fromEntries(headers.map((h) => {
      const i = h.indexOf(":")
      return [h.slice(0, i).trim(), h.slice(i + 1).trim()]
    }))
  }
  const parser: Record<string, unknown> = { type: "pdf" }
  if (values["page-markers"]) parser.pageMarkers = true
  if (values.pages) parser.pages = true
  if (values.blocks) parser.blocks = true
  if (values["max-pages"] !== undefined) parser.maxPages = Number(values["max-pages"])
  if (values.mode !== undefined) parser.mode = values.mode
  if (Object.keys(parser).length > 1) options.parsers = [parser]
  return options
}

const flags = {
  formats: { type: "string" },
  json: { type: "boolean" },
  "all-content": { type: "boolean" },
  "include-tags": { type: "string" },
  "exclude-tags": { type: "string" },
  timeout: { type: "string" },
  header: { type: "string", multiple: true },
  "page-markers": { type: "boolean" },
  pages: { type: "boolean" },
  blocks: { type: "boolean" },
  "max-pages": { type: "string" },
  mode: { type: "string" },
  out: { type: "string" },
  concurrency: { type: "string" },
  force: { type: "boolean" },
  queue: { type: "boolean" },
  wait: { type: "boolean" },
  slots: { type: "string" },
  "health-port": { type: "string" },
  help: { type: "boolean", short: "h" }
} as const

type Values = Record<string, string | boolean | Array<string> | undefined>

const errorText = (error: unknown): string => {
  const reason = (error as { reason?: { _tag?: string; message?: string } }).reason
  return reason ? `strata: ${reason._tag}: ${reason.message}` : `strata: ${(error as Error).message ?? String(error)}`
}

/** A directory, a glob, several targets or `--out` make a batch; one file alone prints to stdout. */
const isBatch = async (targets: ReadonlyArray<string>, values: Values): Promise<boolean> =>
  values.out !== undefined || targets.length > 1 || isGlob(targets[0]!) ||
  (await stat(targets[0]!).then((s) => s.isDirectory(), () => false))

/** `parse <dir|glob|file>... --out <dir>`; resolves to the exit code. */
const batch = async (targets: ReadonlyArray<string>, values: Values, io: Io): Promise<number> => {
  const out = values.out as string | undefined
  if (out === undefined) {
    io.err(`strata: --out <dir> is needed for a directory, a glob or several files\n\n${USAGE}`)
    return 2
  }
  if (values.queue === true) {
    const { queuedParse } = await import("./Fleet.ts")
    return queuedParse({
      targets,
      out,
      options: optionsFromFlags(values, true),
      json: values.json === true,
      formats: list(values.formats as string | undefined),
      wait: values.wait === true
    }, io)
  }
  const concurrency = values.concurrency === undefined ? defaultConcurrency() : Number(values.concurrency)
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    io.err(`strata: --concurrency takes a whole number of at least 1\n\n${USAGE}`)
    return 2
  }
  const strata = await import("strata")
  try {
    const summary = await runBatch({
      targets,
      out,
      options: optionsFromFlags(values, true),
      json: values.json === true,
      formats: list(values.formats as string | undefined),
      concurrency,
      force: values.force === true
    }, strata.parse, { line: io.err, tty: io.tty })
    if (summary.total > 0) return summary.failed > 0 ? 1 : 0
    io.err(`strata: no supported documents in ${targets.join(" ")}`)
    return 2
  } catch (error) {
    // Only a target that cannot be read (a missing path) gets here: documents fail into the report.
    io.err(errorText(error))
    return 2
  } finally {
    await strata.dispose()
  }
}

/** Runs one command line; resolves to the process exit code. */
export const main = async (argv: ReadonlyArray<string>, io: Io): Promise<number> => {
  if (argv[0] === "runs") {
    const { runsCommand } = await import("./Fleet.ts")
    return runsCommand(argv.slice(1), io)
  }
  if (argv[0] === "keys" || argv[0] === "teams") {
    const { accounts, ACCOUNTS_USAGE } = await import("./Accounts.ts")
    if (argv.length === 1) {
      io.err(ACCOUNTS_USAGE)
      return 2
    }
    if (argv.includes("--help") || argv.includes("-h")) {
      io.out(ACCOUNTS_USAGE)
      return 0
    }
    return accounts(argv, io)
  }
  if (argv[0] === "catalog") {
    const { catalogCommand, CATALOG_USAGE } = await import("./CatalogTerms.ts")
    if (argv.length === 1 || argv.includes("--help") || argv.includes("-h")) {
      io[argv.length === 1 ? "err" : "out"](CATALOG_USAGE)
      return argv.length === 1 ? 2 : 0
    }
    return catalogCommand(argv, io)
  }
  let parsed
  try {
    parsed = parseArgs({ args: [...argv], options: flags, allowPositionals: true, strict: true })
  } catch (error) {
    io.err(`${(error as Error).message}\n\n${USAGE}`)
    return 2
  }
  const [command, ...targets] = parsed.positionals
  const target = targets[0]
  if (parsed.values.help || command === undefined) {
    io.out(USAGE)
    return command === undefined && !parsed.values.help ? 2 : 0
  }
  if (command === "serve") {
    const { serveFromEnv } = await import("@strata/http")
    await serveFromEnv()
    return 0
  }
  if (command === "worker") {
    const { defaultSlots, workerCommand } = await import("./Fleet.ts")
    const slots = parsed.values.slots === undefined ? defaultSlots() : Number(parsed.values.slots)
    if (!Number.isInteger(slots) || slots < 1) {
      io.err(`strata: --slots takes a whole number of at least 1\n\n${USAGE}`)
      return 2
    }
    const { healthPortOf } = await import("./WorkerProbes.ts")
    const port = healthPortOf(parsed.values["health-port"], process.env.STRATA_WORKER_HEALTH_PORT)
    if (typeof port === "string") {
      io.err(`strata: ${port}\n\n${USAGE}`)
      return 2
    }
    const host = process.env.STRATA_WORKER_HEALTH_HOST?.trim() || "127.0.0.1"
    // Tests only (the fleet soak test's slow worker): each job is held this long before it is worked.
    const testDelay = Number(process.env.STRATA_TEST_WORKER_DELAY_MS ?? 0)
    return workerCommand(slots, io, port === undefined ? undefined : { host, port }, Number.isFinite(testDelay) && testDelay > 0 ? testDelay : 0)
  }
  if ((command !== "scrape" && command !== "parse") || target === undefined) {
    io.err(USAGE)
    return 2
  }
  if (command === "parse" && (parsed.values.queue === true || (await isBatch(targets, parsed.values)))) return batch(targets, parsed.values, io)
  const strata = await import("strata")
  try {
    const options = optionsFromFlags(parsed.values, command === "parse")
    const data = command === "scrape"
      ? await strata.scrape(target, options)
      : await strata.parse(new Uint8Array(await readFile(target)), basename(target), options)
    io.out(render(data, parsed.values.json ?? false, list(parsed.values.formats)))
    return 0
  } catch (error) {
    io.err(errorText(error))
    return 1
  } finally {
    await strata.dispose()
  }
}
