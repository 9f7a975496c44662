/**
 * Generates labelled layout data from LaTeX: for each seed, a document (`Latex.ts`) built with
 * pdflatex (texlive from the system; nothing is downloaded) into `<seed>.pdf`, with `<seed>.json`
 * beside it in the HTML generator's shape: every labelled element's box per page in PDF points
 * (top-left origin), read back from the PDF's colours and TeX's box positions (`LatexLabels.ts`,
 * `mutool draw -F stext`). Builds are reproducible (SOURCE_DATE_EPOCH), so a seed gives the same
 * PDF and JSON with the same texlive.
 *
 * Split (models/layout/README.md): seeds 0-999 are for training, 1000-1999 held out.
 *
 *   node models/layout/data/generateLatex.ts --from 1000 --to 1099 [--out .tmp/layout-latex] [--force]
 */
import { execFileSync } from "node:child_process"
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { parseArgs } from "node:util"
import { makeLatex } from "./Latex.ts"
import { latexRegions, parseLbl, parseStext } from "./LatexLabels.ts"

const { values: args } = parseArgs({
  options: {
    from: { type: "string", default: "1000" },
    to: { type: "string", default: "1099" },
    out: { type: "string", default: resolve(import.meta.dirname, "../../../.tmp/layout-latex") },
    force: { type: "boolean", default: false },
    /** Keep the build folder of each seed (the .tex, .log and .lbl) under `<out>/build/<seed>`. */
    keep: { type: "boolean", default: false }
  }
})

mkdirSync(args.out, { recursive: true })
const env = { ...process.env, SOURCE_DATE_EPOCH: "1700000000", FORCE_SOURCE_DATE: "1" }
const started = performance.now()
let made = 0, pages = 0, regions = 0
const failed: Array<number> = []
for (let seed = Number(args.from); seed <= Number(args.to); seed++) {
  const pdfPath = join(args.out, `${seed}.pdf`), jsonPath = join(args.out, `${seed}.json`)
  if (!args.force && existsSync(pdfPath) && existsSync(jsonPath)) continue
  const doc = makeLatex(seed)
  const dir = args.keep ? join(args.out, "build", String(seed)) : mkdtempSync(join(tmpdir(), "strata-latex-"))
  mkdirSync(dir, { recursive: true })
  try {
    writeFileSync(join(dir, "doc.tex"), doc.tex)
    for (const image of doc.images) writeFileSync(join(dir, image.name), image.png)
    try {
      execFileSync("pdflatex", ["-interaction=nonstopmode", "-halt-on-error", "doc.tex"], { cwd: dir, env, stdio: "ignore", timeout: 120_000 })
    } catch {
      failed.push(seed)
      const log = existsSync(join(dir, "doc.log")) ? readFileSync(join(dir, "doc.log"), "utf8") : ""
      console.error(`seed ${seed}: pdflatex failed: ${log.split("\n").filter((l) => l.startsWith("!")).slice(0, 3).join(" | ")}`)
      continue
    }
    const stext = execFileSync("mutool", ["draw", "-q", "-F", "stext", "-o", "-", join(dir, "doc.pdf")], { encoding: "utf8", maxBuffer: 1 << 28, stdio: ["ignore", "pipe", "ignore"] })
    const parsed = parseStext(stext)
    const labelled = latexRegions(parsed, parseLbl(readFileSync(join(dir, "doc.lbl"), "utf8")), doc)
    copyFileSync(join(dir, "doc.pdf"), pdfPath)
    writeFileSync(jsonPath, JSON.stringify({
      seed,
      source: "latex",
      width: parsed[0]?.width ?? 0,
      height: parsed[0]?.height ?? 0,
      columns: doc.columns,
      settings: doc.settings,
      pages: labelled.map((r, i) => ({ page: i + 1, regions: r }))
    }))
    made++
    pages += labelled.length
    regions += labelled.reduce((n, r) => n + r.length, 0)
  } finally {
    if (!args.keep) rmSync(dir, { recursive: true, force: true })
  }
}
console.error(`${made} documents, ${pages} pages, ${regions} regions in ${((performance.now() - started) / 1000).toFixed(1)} s -> ${args.out}${failed.length > 0 ? `; failed: ${failed.join(" ")}` : ""}`)
