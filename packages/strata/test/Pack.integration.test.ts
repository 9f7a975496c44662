/**
 * The packages as a user gets them: `npm run build`, `npm pack` of every publishable package, the
 * tarballs installed into an empty project next to Node 22 (the `node` package), then a PDF parsed
 * through `strata`, its `strata` bin and its type declarations, under Node 22 and the repo's Node 24.
 * Slow: the install unpacks about 760 MB of engines (onnxruntime, OCR models) from the npm cache
 * (32 s measured with a warm cache).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { execFile } from "node:child_process"
import { cpSync } from "node:fs"
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { delimiter, dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { PDFDocument, StandardFonts } from "pdf-lib"

const exec = promisify(execFile)
const root = fileURLToPath(new URL("../../../", import.meta.url))
const tsc = join(root, "node_modules", ".bin", "tsc")
const pages = ["one", "two", "three"].map((n) => `Page ${n} of the installed package test.`)

// The children run without the @strata/source condition the test processes have (an installed
// package has no src/), with the repo's Node 24 first on PATH for npm; the page pool is on, so the
// worker thread's entry in dist/ is loaded too (three pages reach the pool's threshold).
const { NODE_OPTIONS: _source, ...inherited } = process.env
const env = { ...inherited, PATH: `${dirname(process.execPath)}${delimiter}${inherited.PATH ?? ""}`, STRATA_PDF_WORKERS: "2" }

interface Packed {
  readonly name: string
  readonly filename: string
  readonly files: ReadonlyArray<{ readonly path: string }>
}

let dir = ""
let packed: Array<Packed> = []

const smoke = `import { readFile } from "node:fs/promises"
import { createStrata } from "strata"
const bytes = new Uint8Array(await readFile(new URL("./smoke.pdf", import.meta.url)))
const strata = createStrata()
const data = await strata.parse({ bytes, fileName: "smoke.pdf" })
await strata.close()
process.stdout.write(process.version + "\\n" + data.markdown + "\\n")
`

// The smoke PDF read by OCR only, with our line engine: its weights and the OCR pool's thread entry come from the installed package.
const linesSmoke = `import { readFile } from "node:fs/promises"
import { createStrata } from "strata"
const bytes = new Uint8Array(await readFile(new URL("./smoke.pdf", import.meta.url)))
const strata = createStrata({ ocr: "lines" })
const data = await strata.parse({ bytes, fileName: "smoke.pdf" }, { parsers: [{ type: "pdf", mode: "ocr" }] })
await strata.close()
process.stdout.write(data.markdown + "\\n")
`

const consumer = `import { createStrata, type ScrapeData } from "strata"
export const markdownOf = async (bytes: Uint8Array): Promise<string | null | undefined> =>
  (await createStrata().parse({ bytes, fileName: "a.pdf" })).markdown
// @ts-expect-error a document is { bytes, fileName }
export const wrong = () => createStrata().parse(new Uint8Array(0))
// @ts-expect-error ScrapeData is an object (an unresolved type would be any and accept this)
export const data: ScrapeData = 42
`

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "strata-pack-"))
  const tarballs = join(dir, "tarballs")
  const project = join(dir, "project")
  await mkdir(tarballs)
  await mkdir(project)
  await exec("npm", ["run", "build"], { cwd: root, env })
  const { stdout } = await exec("npm", ["pack", "--workspaces", "--json", "--pack-destination", tarballs], { cwd: root, env, maxBuffer: 64 * 2 ** 20 })
  packed = JSON.parse(stdout) as Array<Packed>
  // Every package installed from its tarball: overrides keep npm from looking the internal
  // dependencies (pinned to 0.1.0) up in the registry.
  const local = Object.fromEntries(packed.map((p) => [p.name, `file:${join(tarballs, p.filename)}`]))
  await writeFile(join(project, "package.json"), JSON.stringify({
    name: "strata-pack-test",
    private: true,
    type: "module",
    dependencies: { ...local, node: "22" },
    overrides: local,
    allowScripts: { node: true }
  }, null, 2))
  cpSync(join(root, ".npmrc"), join(project, ".npmrc"))
  await exec("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund"], { cwd: project, env })

  const pdf = await PDFDocument.create()
  const font = await pdf.embedFont(StandardFonts.Helvetica)
  for (const text of pages) pdf.addPage([612, 792]).drawText(text, { x: 72, y: 700, size: 12, font })
  await writeFile(join(project, "smoke.pdf"), await pdf.save())
  await writeFile(join(project, "smoke.mjs"), smoke)
  await writeFile(join(project, "lines.mjs"), linesSmoke)
  await writeFile(join(project, "consumer.ts"), consumer)
  await writeFile(join(project, "tsconfig.json"), JSON.stringify({
    compilerOptions: { module: "nodenext", target: "es2024", strict: true, noEmit: true, skipLibCheck: true, types: [] },
    files: ["consumer.ts"]
  }))
}, 600_000)

afterAll(async () => {
  if (dir !== "") await rm(dir, { recursive: true, force: true })
})

const project = () => join(dir, "project")
const node22 = () => join(project(), "node_modules", ".bin", "node")

describe("the packed packages", () => {
  it("ship only dist/ (no src/, tests or build info), and the OCR package its line model", () => {
    expect(packed.map((p) => p.name).sort()).toEqual(["@strata/browser", "@strata/cli", "@strata/core", "@strata/fleet", "@strata/http", "@strata/ocr", "@strata/office", "@strata/pdf", "@strata/store", "strata"])
    const lineModel = ["models/line-model/conv-tiny.json", "models/line-model/conv-tiny.onnx"]
    for (const p of packed) {
      const paths = p.files.map((f) => f.path)
      const stray = paths.filter((path) => !(path.startsWith("dist/") && /\.(js|d\.ts)$/.test(path)) && !["package.json", "README.md"].includes(path))
      expect(stray, p.name).toEqual(p.name === "@strata/ocr" ? lineModel : [])
    }
  })

  it("OCR a PDF with the installed line model under Node 22", async () => {
    const { stdout } = await exec(node22(), ["lines.mjs"], { cwd: project(), env })
    for (const text of pages) expect(stdout).toContain(text)
  }, 120_000)

  it("parse a PDF under Node 22", async () => {
    const { stdout } = await exec(node22(), ["smoke.mjs"], { cwd: project(), env })
    expect(stdout).toMatch(/^v22\./)
    for (const text of pages) expect(stdout).toContain(text)
  }, 60_000)

  it("parse a PDF under the repo's Node 24", async () => {
    const { stdout } = await exec(process.execPath, ["smoke.mjs"], { cwd: project(), env })
    expect(stdout).toMatch(/^v24\./)
    for (const text of pages) expect(stdout).toContain(text)
  }, 60_000)

  it("install a strata bin that runs from dist under Node 22", async () => {
    const bin = join(project(), "node_modules", ".bin")
    const { stdout } = await exec(join(bin, "strata"), ["parse", "smoke.pdf"], { cwd: project(), env: { ...env, PATH: `${bin}${delimiter}${inherited.PATH ?? ""}` } })
    for (const text of pages) expect(stdout).toContain(text)
  }, 60_000)

  it("give a TypeScript consumer their types", async () => {
    const run = await exec(tsc, ["-p", "tsconfig.json"], { cwd: project(), env }).catch((error: { stdout: string }) => error)
    expect(run.stdout).toBe("")
  }, 60_000)
})
