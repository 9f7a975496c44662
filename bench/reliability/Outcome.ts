/**
 * How an answer from /v2/parse is judged: a success, a typed error (a contract error code whose
 * message is ours), or an untyped one (UNKNOWN_ERROR, a body that is not the contract's shape, or
 * a message carrying internal exception text, which the issue says must never reach a client).
 */

/** Codes the contract defines for a document that cannot be read, is too big, or took too long. */
export const typedCodes: ReadonlySet<string> = new Set([
  "BAD_REQUEST",
  "PAYLOAD_TOO_LARGE",
  "UNSUPPORTED_FILE_TYPE",
  "SCRAPE_UNSUPPORTED_FILE_ERROR",
  "DOCUMENT_UNREADABLE",
  "DOCUMENT_TOO_COMPLEX",
  "DOCUMENT_COMPONENT_MISSING",
  "SCRAPE_TIMEOUT",
  "SERVER_BUSY"
])

/** Engine internals that leak through as messages ("labelled corrupt" in the issue). */
const internalText = [
  /Maximum call stack size exceeded/i,
  /Cannot create a string longer/i,
  /Invalid (string|array) length/i,
  /out of memory/i,
  /is not a function|is not iterable|Cannot read propert|undefined is not|null is not/i,
  /\b(TypeError|RangeError|ReferenceError|SyntaxError)\b/,
  /\bat [\w.<>]+ \(.*:\d+:\d+\)/
]

export type Kind = "ok" | "typed" | "untyped"

export interface Judged {
  readonly kind: Kind
  /** `200`, or `422 DOCUMENT_TOO_COMPLEX`, or `500 UNKNOWN_ERROR`. */
  readonly label: string
  readonly code: string | undefined
  readonly message: string | undefined
  readonly why?: string
  readonly markdownChars?: number
  /** Markdown lines that are table rows (a sheet's rows come back as these). */
  readonly tableRows?: number
  readonly warning?: string
}

const record = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === "object" && value !== null ? (value as Record<string, unknown>) : undefined

export const judge = (status: number, body: unknown): Judged => {
  const object = record(body)
  if (object === undefined) return { kind: "untyped", label: `${status} (not JSON)`, code: undefined, message: String(body).slice(0, 200), why: "body is not JSON" }
  if (status === 200 && object.success === true) {
    const data = record(object.data)
    const markdown = typeof data?.markdown === "string" ? data.markdown : ""
    const warning = typeof data?.warning === "string" ? data.warning : undefined
    const tableRows = markdown.split("\n").filter((line) => line.startsWith("|") && !/^\|[\s:|-]+\|?$/.test(line)).length
    return { kind: "ok", label: "200", code: undefined, message: undefined, markdownChars: markdown.length, tableRows, ...(warning === undefined ? {} : { warning }) }
  }
  const code = typeof object.code === "string" ? object.code : undefined
  const message = typeof object.error === "string" ? object.error : undefined
  const label = `${status} ${code ?? "(no code)"}`
  if (code === undefined || !typedCodes.has(code)) return { kind: "untyped", label, code, message, why: code === undefined ? "no error code" : `code ${code}` }
  const leak = internalText.find((pattern) => pattern.test(message ?? ""))
  if (leak !== undefined) return { kind: "untyped", label, code, message, why: "internal exception text in the message" }
  return { kind: "typed", label, code, message }
}

/** Did an external entity get expanded into the answer? (/etc/passwd's first line) */
export const leaksPasswd = (body: unknown): boolean => JSON.stringify(body ?? "").includes("root:x:0:0")
