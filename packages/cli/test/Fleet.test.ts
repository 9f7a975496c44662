/**
 * The fleet commands' pieces that need no database: list files (`@file`, relative to the list's
 * folder, comments and blank lines skipped), run ids (the same command is the same run; other
 * options or another output folder are another), and how a run's progress reads (line, bar,
 * `runs show`, with its ETA).
 */
import type { RunProgress } from "@strata/fleet"
import { mkdir, mkdtemp, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { expandLists, progressBar, progressLine, runIdFor, showRun } from "../src/Fleet.ts"

const progress = (over: Partial<RunProgress> = {}): RunProgress => ({
  id: "0123456789abcdef",
  createdAt: Date.UTC(2026, 10, 25, 6, 0, 0),
  outDir: "/out",
  total: 200,
  done: 50,
  failed: 2,
  running: 4,
  queued: 144,
  throughput: 2.5,
  etaMs: 59_200,
  doubleWrites: 0,
  failures: [{ path: "a/bad.pdf", attempts: 3, error: "Corrupt: not a PDF" }, { path: "b.docx", attempts: 3, error: "Timeout: the attempt ran past its deadline (119750 ms)" }],
  ...over
})

describe("fleet commands", () => {
  it("expands @list files relative to the list's folder, skipping comments and blank lines", async () => {
    const root = await mkdtemp(join(tmpdir(), "strata-list-"))
    await mkdir(join(root, "lists"))
    await writeFile(join(root, "lists", "inputs.txt"), "# the corpus\n../docs/a.pdf\n\n  ../docs/**/*.html  \n/abs/c.csv\n")
    expect(await expandLists(["plain.pdf", `@${join(root, "lists", "inputs.txt")}`])).toEqual([
      "plain.pdf",
      join(root, "docs", "a.pdf"),
      join(root, "docs", "**", "*.html"),
      "/abs/c.csv"
    ])
    await expect(expandLists(["@/no/such/list.txt"])).rejects.toThrow(/ENOENT/)
  })

  it("gives the same command the same run id, and other options or output another", () => {
    const spec = { outDir: "/out", options: { formats: ["markdown"] }, json: false, formats: undefined }
    const id = runIdFor(["b", "a"], spec)
    expect(id).toMatch(/^[0-9a-f]{16}$/)
    expect(runIdFor(["a", "b"], spec)).toBe(id)
    expect(runIdFor(["a", "b"], { ...spec, json: true })).not.toBe(id)
    expect(runIdFor(["a", "b"], { ...spec, outDir: "/elsewhere" })).not.toBe(id)
    expect(runIdFor(["a", "b"], { ...spec, options: { formats: ["markdown"], timeout: 5000 } })).not.toBe(id)
  })

  it("reads a run's progress: counts, rate, ETA, bar and failures", () => {
    expect(progressLine(progress())).toBe("50/200 done (26%), 2 failed, 4 running, 144 queued, 2.50 documents/s, ETA 59 s")
    expect(progressLine(progress({ etaMs: 4_000_000 }))).toContain("ETA 1 h 06 min")
    expect(progressLine(progress({ throughput: undefined, etaMs: undefined }))).toBe("50/200 done (26%), 2 failed, 4 running, 144 queued")
    expect(progressBar(progress())).toBe(`[${"#".repeat(6)}${"-".repeat(18)}]`)
    expect(progressBar(progress({ done: 198 }))).toBe(`[${"#".repeat(24)}]`)
    const shown = showRun(progress({ failed: 5 }))
    expect(shown).toContain("run 0123456789abcdef (created 2026-11-25T06:00:00.000Z, output in /out)")
    expect(shown).toContain("failures (first 2 of 5):")
    expect(shown).toContain("  a/bad.pdf (3 attempts): Corrupt: not a PDF")
    expect(shown).not.toContain("more than once")
    expect(showRun(progress({ doubleWrites: 1 }))).toContain("results stored more than once: 1")
  })
})
