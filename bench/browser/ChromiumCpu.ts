/**
 * Chromium's CPU time, read from /proc: the user and system ticks (its reaped children's too) of
 * every Chromium process under this one, for the browser benches that pair settings by CPU.
 */
import { readFileSync } from "node:fs"
import { processTree } from "../reliability/ServerProcess.ts"

/** Chromium CPU ms of this process's tree (every browser launched here; a process gone meanwhile counts no more). */
export const chromiumCpuMs = (): number => {
  let ticks = 0
  for (const pid of processTree(process.pid)) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
      if (!/chrom/i.test(stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")))) continue
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
      ticks += Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])
    } catch {
      // gone
    }
  }
  return ticks * 10
}
