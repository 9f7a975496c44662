/** The machine's font families (first name of each, sorted), which generated documents draw from. */
import { execFileSync } from "node:child_process"

export const fontFamilies = (): Array<string> =>
  [...new Set(execFileSync("fc-list", [":", "family"], { encoding: "utf8" }).split("\n").map((l) => l.split(",")[0].trim()).filter((l) => l.length > 0))].sort()
