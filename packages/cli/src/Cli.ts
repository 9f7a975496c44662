/**
 * The `strata` command line: `scrape <url>`, `parse <file>`, `serve`. It runs the same
 * pipeline as the server, in-process, and prints markdown (or the whole `data` as JSON).
 */
import { readFile } from "node:fs/promises"
import { basename } from "node:path"
import { parseArgs } from "node:util"

export const USAGE = `Usage:
  strata scrape <url>   [--formats markdown,html,rawHtml,links,rawBase64] [--json] [--all-content]
                        [--include-tags sel,sel] [--exclude-tags sel,sel] [--timeout ms] [--header "Name: value"]...
                        [--page-markers] [--pages] [--blocks] [--max-pages N] [--mode fast|auto|ocr]
  strata parse <file>   (the same options, for a local document)
  strata serve          start the HTTP server (HOST, PORT, STRATA_API_KEYS, STRATA_DATA_DIR)

Without --json, prints the first requested text format (markdown by default).`

export interface Io {
  readonly out: (text: string) => void
  readonly err: (text: string) => void
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
  help: { type: "boolean", short: "h" }
} as const

const render = (data: Record<string, unknown>, json: boolean, formats: Array<string> | undefined): string => {
  if (json) return JSON.stringify(data, null, 2)
  for (const format of formats ?? ["markdown"]) {
    const value = data[format]
    if (typeof value === "string") return value
    if (Array.isArray(value)) return value.join("\n")
  }
  return JSON.stringify(data, null, 2)
}

/** Runs one command line; resolves to the process exit code. */
export const main = async (argv: ReadonlyArray<string>, io: Io): Promise<number> => {
  let parsed
  try {
    parsed = parseArgs({ args: [...argv], options: flags, allowPositionals: true, strict: true })
  } catch (error) {
    io.err(`${(error as Error).message}\n\n${USAGE}`)
    return 2
  }
  const [command, target] = parsed.positionals
  if (parsed.values.help || command === undefined) {
    io.out(USAGE)
    return command === undefined && !parsed.values.help ? 2 : 0
  }
  if (command === "serve") {
    const { serveFromEnv } = await import("@strata/http")
    await serveFromEnv()
    return 0
  }
  if ((command !== "scrape" && command !== "parse") || target === undefined) {
    io.err(USAGE)
    return 2
  }
  const strata = await import("strata")
  try {
    const options = optionsFromFlags(parsed.values, command === "parse")
    const data = command === "scrape"
      ? await strata.scrape(target, options)
      : await strata.parse(new Uint8Array(await readFile(target)), basename(target), options)
    io.out(render(data, parsed.values.json ?? false, list(parsed.values.formats)))
    return 0
  } catch (error) {
    const reason = (error as { reason?: { _tag?: string; message?: string } }).reason
    io.err(reason ? `strata: ${reason._tag}: ${reason.message}` : `strata: ${(error as Error).message ?? String(error)}`)
    return 1
  } finally {
    await strata.dispose()
  }
}
