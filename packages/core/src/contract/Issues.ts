/**
 * Turns Schema validation issues into the contract's `InvalidRequest` (path + readable message
 * per issue), so every rejected request says exactly which keys broke which rule.
 */
import { SchemaIssue } from "effect"
import { InvalidRequest, scrapeError, type ScrapeError } from "../ScrapeError.ts"

export interface RequestIssue {
  readonly path: ReadonlyArray<string | number>
  readonly message: string
}

const formatter = SchemaIssue.makeFormatterStandardSchemaV1()

/** `["formats", 0, "type"]` -> `formats[0].type` */
export const formatPath = (path: ReadonlyArray<string | number>): string =>
  path.reduce<string>(
    (out, key) => (typeof key === "number" ? `${out}[${key}]` : out === "" ? key : `${out}.${key}`),
    ""
  )

const keyOf = (path: ReadonlyArray<string | number>): string => String(path[path.length - 1] ?? "")

/** Flattens a Schema issue, rewording the generic messages that read poorly in an API error. */
export const issuesFromSchema = (
  issue: SchemaIssue.Issue,
  rename?: (issue: RequestIssue) => RequestIssue | undefined
): Array<RequestIssue> =>
  formatter(issue).issues.map((raw) => {
    const path = (raw.path ?? []).map((segment) => {
      const key = typeof segment === "object" && segment !== null && "key" in segment ? segment.key : segment
      return typeof key === "number" ? key : String(key)
    })
    const message = raw.message === "Expected no excess property"
      ? `Unknown key "${keyOf(path)}" is not allowed here`
      : raw.message === "Missing key"
      ? `Missing required key "${keyOf(path)}"`
      : raw.message
    const out: RequestIssue = { path, message }
    return rename?.(out) ?? out
  })

/** The `ScrapeError` for a list of issues; the message names the first few. */
export const invalidRequest = (subject: string, issues: ReadonlyArray<RequestIssue>): ScrapeError => {
  const shown = issues.slice(0, 3).map((i) => (i.path.length > 0 ? `${formatPath(i.path)}: ${i.message}` : i.message))
  const more = issues.length > 3 ? ` (and ${issues.length - 3} more)` : ""
  return scrapeError(
    new InvalidRequest({
      message: `Invalid ${subject}: ${shown.join("; ")}${more}`,
      details: issues.map((i) => ({ path: [...i.path], message: i.message }))
    })
  )
}
