/**
 * What `changeTracking` says about a page, given its last snapshot and this scrape: pure functions.
 *
 * - `changeStatus`: `removed` when the page answers 404 or 410; `new` with no snapshot; `changed`
 *   when the page comes back after being removed, or when its markdown differs once normalised
 *   (`comparable`: line endings, runs of whitespace and blank lines do not count, so re-rendering
 *   the same text is `same`); else `same`. Firecrawl compares sorted characters with all
 *   whitespace removed (NOTES-firecrawl-behaviour.md, section 5), which calls a page whose
 *   paragraphs swapped places `same`; collapsing whitespace keeps order.
 * - `markdownDiff`: a unified diff (`--- previous.md`, `+++ current.md`, 3 lines of context) of
 *   the markdown with line endings and trailing spaces normalised. A line diff is bounded in
 *   edits and time; past that, the diff replaces the whole file, and says so.
 * - `jsonChanges`: json mode's `{ key: { previous, current } }` for every top-level key of the
 *   schema (of either value, without one).
 */
import { createTwoFilesPatch } from "diff"
import { createHash } from "node:crypto"
import type { ScrapeData } from "../contract/index.ts"
import { canonicalJson } from "./Idempotency.ts"
import type { PageSnapshot } from "./Store.ts"

export type ChangeStatus = NonNullable<ScrapeData["changeTracking"]>["changeStatus"]

/** HTTP statuses that say the page is gone. */
export const isRemovedStatus = (status: number): boolean => status === 404 || status === 410

/** The markdown as compared: NFC, one space for any run of whitespace (newlines included), trimmed. */
export const comparable = (markdown: string): string => markdown.normalize("NFC").replace(/\s+/gu, " ").trim()

export const changeStatus = (
  previous: PageSnapshot | undefined,
  current: { readonly markdown: string; readonly status: number }
): ChangeStatus => {
  if (isRemovedStatus(current.status)) return "removed"
  if (previous === undefined) return "new"
  if (previous.removed) return "changed"
  return comparable(previous.markdown) === comparable(current.markdown) ? "same" : "changed"
}

/** Markdown as diffed: `\n` line endings, no trailing spaces, one final newline. */
const diffable = (markdown: string): string => {
  const lines = markdown.replace(/\r\n?/g, "\n").split("\n").map((line) => line.replace(/[ \t]+$/, ""))
  while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop()
  return lines.length === 0 ? "" : `${lines.join("\n")}\n`
}

/**
 * Edits a line diff may find before it gives up: past it the diff replaces the whole file. The
 * search grows with the square of this bound: two 5,000-line pages with every line changed gave
 * up after 191 ms at 500, 353 ms at 1,000, 1.6 s at 2,000 and 7.5 s at 4,000 (load average 7.7 on
 * 2 cores); a 20,000-line page with 300 changed lines took 583 ms at 1,000.
 */
const MAX_EDITS = 1000
/** And the time it may take (the `diff` package checks its clock between steps). */
const MAX_DIFF_MS = 1000

export interface MarkdownDiff {
  readonly text: string
  /** Set when the line diff gave up and the diff replaces the whole file. */
  readonly warning?: string | undefined
}

/** Every old line removed, every new line added: always a valid unified diff. */
const wholeReplacement = (before: string, after: string): string => {
  const lines = (text: string) => (text === "" ? [] : text.slice(0, -1).split("\n"))
  const old = lines(before)
  const now = lines(after)
  const range = (count: number) => `${count === 0 ? 0 : 1},${count}`
  return [
    "--- previous.md",
    "+++ current.md",
    `@@ -${range(old.length)} +${range(now.length)} @@`,
    ...old.map((line) => `-${line}`),
    ...now.map((line) => `+${line}`)
  ].join("\n") + "\n"
}

export const markdownDiff = (previous: string, current: string): MarkdownDiff => {
  const before = diffable(previous)
  const after = diffable(current)
  const patch = createTwoFilesPatch("previous.md", "current.md", before, after, undefined, undefined, {
    context: 3,
    maxEditLength: MAX_EDITS,
    timeout: MAX_DIFF_MS
  })
  if (patch === undefined) {
    return {
      text: wholeReplacement(before, after),
      warning: `changeTracking: the markdown changed in more than ${MAX_EDITS} places (or a line diff took over ${MAX_DIFF_MS} ms), so the diff replaces the whole page`
    }
  }
  // The package starts with a line of `=`; a unified diff starts at `---`.
  return { text: patch.slice(patch.indexOf("--- ")) }
}

/** Names the schema and prompt json values were extracted with: values under another name are not compared. */
export const schemaKeyOf = (wanted: { readonly schema?: unknown; readonly prompt?: string | undefined }): string =>
  createHash("sha256").update(canonicalJson({ schema: wanted.schema ?? null, prompt: wanted.prompt ?? null })).digest("hex")

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** The top-level keys a schema names: `properties`, or the schema itself read as a properties map. */
export const schemaKeys = (schema: Record<string, unknown> | undefined): ReadonlyArray<string> | undefined => {
  if (schema === undefined) return undefined
  if (isRecord(schema.properties)) return Object.keys(schema.properties)
  if (schema.type === undefined && schema.$ref === undefined && schema.items === undefined) return Object.keys(schema)
  return undefined
}

/**
 * `{ key: { previous, current } }` for each key of the schema (both values' keys when it names
 * none); a value that is not an object is compared whole, under `value`. Missing is `null`.
 */
export const jsonChanges = (
  schema: Record<string, unknown> | undefined,
  previous: unknown,
  current: unknown
): Record<string, { readonly previous: unknown; readonly current: unknown }> => {
  const bothObjects = (previous === null || previous === undefined || isRecord(previous)) &&
    (current === null || current === undefined || isRecord(current))
  if (!bothObjects) return { value: { previous: previous ?? null, current: current ?? null } }
  const before = isRecord(previous) ? previous : {}
  const after = isRecord(current) ? current : {}
  const keys = schemaKeys(schema) ?? [...new Set([...Object.keys(before), ...Object.keys(after)])]
  return Object.fromEntries(keys.map((key) => [key, { previous: before[key] ?? null, current: after[key] ?? null }]))
}
