/** Batch conversion on real files in a temp dir: small PDFs made with pdf-lib, a CSV and a corrupt PDF. */
import { beforeAll, describe, expect, it } from "vitest"
import { mkdir, mkdtemp, readdir, readFile, stat, utimes, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { PDFDocument, StandardFonts } from "pdf-lib"
import { forEachLimited, runBatch, type BatchConfig } from "../src/Batch.ts"
import { main } from "../src/index.ts"

const capture = () => {
  const out: Array<string> = []
  const err: Array<string> = []
  return { io: { out: (t: string) => out.push(t), err: (t: string) => err.push(t) }, out, err }
}

const pdf = async (text: string): Promise<Uint8Array> => {
  const doc = await PDFDocument.create()
  const font = await doc.embedFont(StandardFonts.Helvetica)
  doc.addPage([400, 300]).drawText(text, { x: 40, y: 240, size: 14, font })
  return doc.save()
}

/** A fresh corpus: two PDFs (one in a sub folder), a CSV, a text file that is not a document, and optionally a corrupt PDF. */
const corpus = async (withCorrupt: boolean): Promise<{ input: string; out: string }> => {
  const root = await mkdtemp(join(tmpdir(), "strata-batch-"))
  const input = join(root, "in")
  await mkdir(join(input, "reports"), { recursive: true })
  await writeFile(join(input, "alpha.pdf"), await pdf("Alpha quarterly summary"))
  await writeFile(join(input, "reports", "beta.pdf"), await pdf("Beta annual report"))
  await writeFile(join(input, "table.csv"), "name,qty\napple,3\npear,5\n")
  await writeFile(join(input, "notes.txt"), "not a supported document")
  if (withCorrupt) await writeFile(join(input, "broken.pdf"), "%PDF-1.7\nthis is not really a pdf")
  return { input, out: join(root, "out") }
}

const exists = (path: string) => stat(path).then(() => true, () => false)

const filesUnder = async (dir: string): Promise<Array<string>> =>
  (await readdir(dir, { recursive: true, withFileTypes: true })).filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1)).sort()

describe("strata parse <dir> --out <dir>", () => {
  let clean: { input: string; out: string }

  beforeAll(async () => {
    clean = await corpus(false)
  })

  it("converts every supported document into a mirrored tree of .md and .json", async () => {
    const { io, err } = capture()
    expect(await main(["parse", clean.input, "--out", clean.out, "--json"], io)).toBe(0)
    expect(await filesUnder(clean.out)).toEqual([
      "alpha.pdf.json", "alpha.pdf.md", "reports/beta.pdf.json", "reports/beta.pdf.md", "table.csv.json", "table.csv.md"
    ])
    expect(await readFile(join(clean.out, "alpha.pdf.md"), "utf8")).toContain("Alpha quarterly summary")
    expect(await readFile(join(clean.out, "table.csv.md"), "utf8")).toMatch(/\|\s*name\s*\|\s*qty\s*\|/)
    const data = JSON.parse(await readFile(join(clean.out, "reports", "beta.pdf.json"), "utf8"))
    expect(data.markdown).toContain("Beta annual report")
    expect(data.metadata).toBeDefined()
    expect(err.join("\n")).toContain("converted 3, failed 0, skipped 0")
  })

  it("prints one plain progress line per document when stderr is not a terminal", async () => {
    const { out } = await corpus(false)
    const { io, err } = capture()
    expect(await main(["parse", clean.input, "--out", out], io)).toBe(0)
    const lines = err.filter((line) => line.startsWith("["))
    expect(lines).toHaveLength(3)
    for (const line of lines) expect(line).toMatch(/^\[[1-3]\/3\] ok (alpha\.pdf|reports\/beta\.pdf|table\.csv) \(\d+ ms\)$/)
    expect(err.join("")).not.toContain("\r")
  })

  it("skips documents whose outputs are up to date on a rerun and converts a changed one", async () => {
    const again = capture()
    expect(await main(["parse", clean.input, "--out", clean.out, "--json"], again.io)).toBe(0)
    expect(again.err[0]).toContain("3 documents, 0 to convert, 3 skipped")
    const later = new Date(Date.now() + 60_000)
    await utimes(join(clean.input, "table.csv"), later, later)
    const changed = capture()
    expect(await main(["parse", clean.input, "--out", clean.out, "--json"], changed.io)).toBe(0)
    expect(changed.err.join("\n")).toContain("converted 1, failed 0, skipped 2")
    expect(changed.err.some((line) => line.includes("ok table.csv"))).toBe(true)
    const forced = capture()
    expect(await main(["parse", clean.input, "--out", clean.out, "--force"], forced.io)).toBe(0)
    expect(forced.err.join("\n")).toContain("converted 3, failed 0, skipped 0")
  })

  it("lists a failed document in the report, finishes the others and exits 1", async () => {
    const { input, out } = await corpus(true)
    const { io, err } = capture()
    expect(await main(["parse", input, "--out", out], io)).toBe(1)
    const report = (await readFile(join(out, "strata-failures.jsonl"), "utf8")).trim().split("\n").map((l) => JSON.parse(l))
    expect(report).toEqual([{ path: "broken.pdf", reason: "DocumentUnreadable", kind: "corrupt", message: expect.any(String) }])
    expect(await exists(join(out, "broken.pdf.md"))).toBe(false)
    expect(await filesUnder(out)).toEqual(["alpha.pdf.md", "reports/beta.pdf.md", "strata-failures.jsonl", "table.csv.md"])
    expect(err.some((line) => /^\[\d\/4\] failed broken\.pdf: DocumentUnreadable \(corrupt\)/.test(line))).toBe(true)
    // The rerun retries only the failure, and the report is started afresh.
    const rerun = capture()
    expect(await main(["parse", input, "--out", out], rerun.io)).toBe(1)
    expect(rerun.err.join("\n")).toContain("converted 0, failed 1, skipped 3")
    expect((await readFile(join(out, "strata-failures.jsonl"), "utf8")).trim().split("\n")).toHaveLength(1)
  })

  it("expands a quoted glob relative to its fixed leading directories", async () => {
    const { input, out } = await corpus(false)
    const { io } = capture()
    expect(await main(["parse", `${input}/**/*.pdf`, "--out", out], io)).toBe(0)
    expect(await filesUnder(out)).toEqual(["alpha.pdf.md", "reports/beta.pdf.md"])
  })

  it("exits 2 on usage errors: a directory without --out, a bad --concurrency, no documents", async () => {
    const noOut = capture()
    expect(await main(["parse", clean.input], noOut.io)).toBe(2)
    expect(noOut.err.join("")).toContain("--out")
    const badConcurrency = capture()
    expect(await main(["parse", clean.input, "--out", clean.out, "--concurrency", "0"], badConcurrency.io)).toBe(2)
    const empty = await mkdtemp(join(tmpdir(), "strata-empty-"))
    const none = capture()
    expect(await main(["parse", empty, "--out", join(empty, "out")], none.io)).toBe(2)
    expect(none.err.join("")).toContain("no supported documents")
    const missing = capture()
    expect(await main(["parse", join(empty, "nope"), "--out", join(empty, "out")], missing.io)).toBe(2)
  })
})

describe("the batch runner", () => {
  it("keeps at most `concurrency` documents in flight", async () => {
    const root = await mkdtemp(join(tmpdir(), "strata-limit-"))
    for (let i = 0; i < 9; i++) await writeFile(join(root, `doc${i}.csv`), `n\n${i}\n`)
    let inFlight = 0
    let most = 0
    const convert = async () => {
      most = Math.max(most, ++inFlight)
      await new Promise((resolve) => setTimeout(resolve, 15))
      inFlight--
      return { markdown: "ok" }
    }
    const config: BatchConfig = {
      targets: [root], out: join(root, "out"), options: {}, json: false, formats: undefined, concurrency: 3, force: false
    }
    const summary = await runBatch(config, convert, { line: () => {} })
    expect(summary).toMatchObject({ total: 9, converted: 9, failed: 0, skipped: 0 })
    expect(most).toBe(3)
    expect((await readdir(join(root, "out"))).filter((f) => f.endsWith(".tmp"))).toEqual([])
  })

  it("runs every item once whatever the bound", async () => {
    const seen: Array<number> = []
    await forEachLimited([1, 2, 3, 4, 5], 2, async (n) => {
      await new Promise((resolve) => setTimeout(resolve, (5 - n) * 2))
      seen.push(n)
    })
    expect(seen.sort()).toEqual([1, 2, 3, 4, 5])
    await forEachLimited([], 4, async () => {})
  })
})
