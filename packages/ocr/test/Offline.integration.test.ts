/** Both engines work with the network off (a fresh network namespace via `unshare -n`, where the machine allows it). */
import { spawnSync } from "node:child_process"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"

const canUnshare = spawnSync("unshare", ["-n", "true"]).status === 0

describe("offline engines", () => {
  it.skipIf(!canUnshare)("start and read a page with no network interface at all", () => {
    const script = fileURLToPath(new URL("./support/OfflineCheck.ts", import.meta.url))
    const run = spawnSync("unshare", ["-n", process.execPath, script], { encoding: "utf8", timeout: 120_000 })
    expect(run.status, run.stderr).toBe(0)
    const out = JSON.parse(run.stdout.trim().split("\n").pop() ?? "{}") as Record<string, string>
    expect(out.tesseract).toMatch(/^Section 1/)
    expect(out.paddle).toMatch(/^Section 1/)
  }, 120_000)
})
