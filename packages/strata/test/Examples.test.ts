/** Runs every program in examples/ as a user would, in a child process, and checks what it prints. */
import { describe, expect, it, beforeAll } from "vitest"
import { execFile } from "node:child_process"
import { mkdtemp, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { PDFDocument, StandardFonts } from "pdf-lib"

const run = promisify(execFile)
const root = fileURLToPath(new URL("../../../", import.meta.url))
let pdfPath = ""

const example = (name: string, ...args: Array<string>) =>
  run(process.execPath, [join(root, "examples", name), ...args], { cwd: root, timeout: 60_000, env: { ...process.env, STRATA_ALLOW_PRIVATE_URLS: "" } })

beforeAll(async () => {
  const pdf = await PDFDocument.create()
  const font = await pdf.embedFont(StandardFonts.Helvetica)
  pdf.addPage([612, 792]).drawText("The first page of the example document.", { x: 72, y: 700, size: 12, font })
  pdf.addPage([612, 792]).drawText("A second page, written lower down.", { x: 72, y: 400, size: 12, font })
  pdfPath = join(await mkdtemp(join(tmpdir(), "strata-examples-")), "example.pdf")
  await writeFile(pdfPath, await pdf.save())
})

describe("examples", () => {
  it("document-to-markdown.ts prints the document's markdown with page markers", async () => {
    const { stdout } = await example("document-to-markdown.ts", pdfPath)
    expect(stdout).toContain("The first page of the example document.")
    expect(stdout).toContain("<!-- page 2 -->")
  })

  it("sdk-against-strata.ts scrapes through the Firecrawl SDK", async () => {
    const { stdout } = await example("sdk-against-strata.ts")
    expect(stdout).toContain("Hello from Strata")
    expect(stdout).toContain("scraped through the Firecrawl SDK")
  })

  it("stream-pages.ts prints pages as they come and the page count", async () => {
    const { stdout } = await example("stream-pages.ts", pdfPath)
    expect(stdout).toContain("A second page, written lower down.")
    expect(stdout).toContain("(2 pages)")
  })
})
