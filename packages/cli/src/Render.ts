/** What the command line prints (or writes to a `.md` file) for one `data` object. */

/** The first requested text format (markdown by default), or the whole `data` as JSON with `json`. */
export const render = (data: Record<string, unknown>, json: boolean, formats: ReadonlyArray<string> | undefined): string => {
  if (json) return JSON.stringify(data, null, 2)
  for (const format of formats ?? ["markdown"]) {
    const value = data[format]
    if (typeof value === "string") return value
    if (Array.isArray(value)) return value.join("\n")
  }
  return JSON.stringify(data, null, 2)
}
