/** Runs every program in examples/ as a user would, in a child process, and checks what it prints. */
import { describe, expect, it, beforeAll } from "vitest"
import { execFile } from "node:child_process"
import { mkdtemp, readFile, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { PDFDocument, StandardFonts } from "pdf-lib"

const run = promisify(execFile)
const root = fileURLToPath(new URL("../../../", import.meta.url))
let pdfPath = ""
let longPdfPath = ""
let contactsPath = ""

const example = (name: string, ...args: Array<string>) =>
  run(process.execPath, [join(root, "examples", name), ...args], { cwd: root, timeout: 200_000, env: { ...process.env, STRATA_ALLOW_PRIVATE_URLS: "" } })

beforeAll(async () => {
  const pdf = await PDFDocument.create()
  const font = await pdf.embedFont(StandardFonts.Helvetica)
  pdf.addPage([612, 792]).drawText("The first page of the example document.", { x: 72, y: 700, size: 12, font })
  pdf.addPage([612, 792]).drawText("A second page, written lower down.", { x: 72, y: 400, size: 12, font })
  const dir = await mkdtemp(join(tmpdir(), "strata-examples-"))
  pdfPath = join(dir, "example.pdf")
  await writeFile(pdfPath, await pdf.save())
  // 2,000 pages for the streaming example.
  const long = await PDFDocument.create()
  const longFont = await long.embedFont(StandardFonts.Helvetica)
  for (let n = 1; n <= 2000; n++) {
    const page = long.addPage([612, 792])
    page.drawText(`Chapter ${Math.ceil(n / 20)}, page ${n}`, { x: 72, y: 720, size: 14, font: longFont })
    page.drawText(`This is the body text of page ${n}, long enough to be a paragraph of its own.`, { x: 72, y: 480, size: 11, font: longFont })
  }
  longPdfPath = join(dir, "long.pdf")
  await writeFile(longPdfPath, await long.save())
  const contacts = await PDFDocument.create()
  const contactsFont = await contacts.embedFont(StandardFonts.Helvetica)
  contacts.addPage([612, 792]).drawText("Write to jane.doe@example.org or call +44 20 7946 0958 before Friday.", { x: 72, y: 700, size: 12, font: contactsFont })
  contactsPath = join(dir, "contacts.pdf")
  await writeFile(contactsPath, await contacts.save())
}, 120_000)

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

  it("custom-stage masks contacts with a redaction stage of its own", async () => {
    const { stdout } = await example("custom-stage/index.ts", contactsPath)
    expect(stdout).toContain("Write to <EMAIL> or call <PHONE> before Friday.")
    expect(stdout).not.toContain("jane.doe@example.org")
  })

  it("stream-pdf reads a 2,000-page PDF page by page", async () => {
    const out = join(tmpdir(), `strata-stream-${process.pid}.md`)
    const { stdout, stderr } = await example("stream-pdf/index.ts", longPdfPath, out)
    expect(stdout).toMatch(/^2000 pages of 2000 in /)
    expect(stderr).toContain("1000 pages")
    const markdown = await readFile(out, "utf8")
    expect(markdown).toContain("<!-- page 2000 -->")
    expect(markdown).toContain("This is the body text of page 1999")
  }, 240_000)

  it("stream-pages.ts prints pages as they come and the page count", async () => {
    const { stdout } = await example("stream-pages.ts", pdfPath)
    expect(stdout).toContain("A second page, written lower down.")
    expect(stdout).toContain("(2 pages)")
  })
})
