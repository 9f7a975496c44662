/**
 * The same generated tables (`TableSpecs.ts`: the grid of each seed) typeset by pdflatex instead of
 * printed by Chromium: another producer (Computer Modern, Times, Palatino or Helvetica; runs cut
 * at kerns; TeX's own rules), for checking that what was tuned on Chromium's tables holds. Writes
 * `<seed>.pdf` and `<seed>.json` (grid, kind, the table's box in PDF points, top-left origin) to
 * `.tmp/tables-latex`. Needs Debian's texlive (latex-base, -recommended, -extra); CI does not run it.
 *
 * Styles by kind: `booktabs` (\toprule, \cmidrule under group heads, \midrule, \bottomrule),
 * `financial` (\cmidrule under group heads and the years, \cline over totals' figures, items
 * indented under section labels), `grid` (vertical rules, \hline, \cline beside row spans,
 * \multirow), `plain` (no rules, or \hline under the header), `zebra` (\rowcolors bands). Wrapped
 * text columns are p{} columns.
 *
 *   node -C @strata/source bench/pdf/tables/latex.ts --from 2000 --to 2199
 */
import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { parseArgs } from "node:util"
import { base, en, Faker } from "@faker-js/faker"
import { fontFamilies } from "../../../models/layout/data/FontFamilies.ts"
import { makeTable, type SpecCell, type TableSpec } from "./TableSpecs.ts"

const { values: args } = parseArgs({
  options: {
    from: { type: "string", default: "2000" },
    to: { type: "string", default: "2199" },
    out: { type: "string", default: resolve(import.meta.dirname, "../../../.tmp/tables-latex") },
    force: { type: "boolean", default: false }
  }
})

const esc = (s: string) => s.replace(/\\/g, "\\textbackslash{}").replace(/([&%$#_{}])/g, "\\$1").replace(/~/g, "\\textasciitilde{}").replace(/\^/g, "\\textasciicircum{}")
const NUMBER = /^[$(\d–—-]/

/** The table's tabular, from its grid and kind. */
const tabular = (spec: TableSpec, f: Faker): string => {
  const at = new Map<string, SpecCell>()
  const covered = new Set<string>()
  for (const c of spec.cells) {
    at.set(`${c.row},${c.col}`, c)
    for (let r = c.row; r < c.row + c.rowSpan; r++) for (let k = c.col; k < c.col + c.colSpan; k++) if (r !== c.row || k !== c.col) covered.add(`${r},${k}`)
  }
  const body = spec.cells.filter((c) => c.row >= spec.headerRows)
  const textCol = Array.from({ length: spec.cols }, (_, k) => body.filter((c) => c.col === k && c.text.length > 40).length >= 2)
  const numeric = Array.from({ length: spec.cols }, (_, k) => k > 0 && !textCol[k] && body.filter((c) => c.col === k).every((c) => NUMBER.test(c.text)))
  const grid = spec.kind === "grid"
  const spec_ = Array.from({ length: spec.cols }, (_, k) => (textCol[k] ? `p{${f.number.int({ min: 35, max: 55 })}mm}` : numeric[k] ? "r" : "l"))
  const colspec = grid ? `|${spec_.join("|")}|` : spec_.join("")
  const lines: Array<string> = []
  const top = spec.kind === "booktabs" ? "\\toprule" : grid ? "\\hline" : ""
  if (top) lines.push(top)
  for (let r = 0; r < spec.rows; r++) {
    const cells: Array<string> = []
    for (let k = 0; k < spec.cols; k++) {
      if (covered.has(`${r},${k}`)) {
        // A row span's later rows keep an empty slot; a column span's later columns are skipped.
        const owner = spec.cells.find((c) => c.row < r && c.row + c.rowSpan > r && c.col <= k && c.col + c.colSpan > k)
        if (owner !== undefined && k === owner.col) cells.push(owner.colSpan > 1 ? `\\multicolumn{${owner.colSpan}}{${grid ? "|c|" : "c"}}{}` : "")
        continue
      }
      const c = at.get(`${r},${k}`)
      let text = c === undefined ? "" : esc(c.text)
      if (c !== undefined && r >= spec.headerRows && spec.kind === "financial" && k === 0 && !c.text.endsWith(":") && spec.cells.some((s) => s.col === 0 && s.row < r && s.row >= spec.headerRows && s.text.endsWith(":"))) text = `\\hspace{1em}${text}`
      if (c !== undefined && r < spec.headerRows && spec.kind !== "financial") text = `\\textbf{${text}}`
      if (c !== undefined && c.rowSpan > 1) text = `\\multirow{${c.rowSpan}}{*}{${text}}`
      if (c !== undefined && c.colSpan > 1) text = `\\multicolumn{${c.colSpan}}{${grid ? "|c|" : "c"}}{${text}}`
      cells.push(text)
    }
    lines.push(`${cells.join(" & ")} \\\\`)
    // Rules under the row.
    const heads = spec.cells.filter((c) => c.row === r && c.colSpan > 1)
    if (r < spec.headerRows - 1 && heads.length > 0 && !grid) lines.push(heads.map((c) => `\\cmidrule(lr){${c.col + 1}-${c.col + c.colSpan}}`).join(" "))
    if (r === spec.headerRows - 1) lines.push(spec.kind === "booktabs" ? "\\midrule" : spec.kind === "financial" ? `\\cmidrule(lr){2-${spec.cols}}` : spec.kind === "plain" && f.datatype.boolean() ? "\\hline" : grid ? "\\hline" : "")
    else if (grid && r < spec.rows - 1) {
      // \cline beside the row spans that go on under this row.
      const open = new Set(spec.cells.filter((c) => c.row <= r && c.row + c.rowSpan - 1 > r).flatMap((c) => Array.from({ length: c.colSpan }, (_, i) => c.col + i)))
      lines.push(open.size === 0 ? "\\hline" : Array.from({ length: spec.cols }, (_, k) => k).filter((k) => !open.has(k)).map((k) => `\\cline{${k + 1}-${k + 1}}`).join(""))
    }
    const next = spec.cells.find((c) => c.row === r + 1 && c.col === 0)
    if (spec.kind === "financial" && next !== undefined && next.text.startsWith("Total ")) lines.push(`\\cline{2-${spec.cols}}`)
  }
  if (spec.kind === "booktabs") lines.push("\\bottomrule")
  else if (grid) lines.push("\\hline")
  const zebra = spec.kind === "zebra" ? `\\rowcolors{${spec.headerRows + 1}}{${f.helpers.arrayElement(["gray!15", "blue!8", "orange!12"])}}{white}` : ""
  return `${zebra}\\begin{tabular}{${colspec}}\n${lines.filter((l) => l.length > 0).join("\n")}\n\\end{tabular}`
}

const preamble = (font: string) => `\\documentclass[10pt]{article}
\\usepackage[letterpaper,margin=1in]{geometry}
\\usepackage[T1]{fontenc}
${font}
\\usepackage{booktabs,multirow,array}
\\usepackage[table]{xcolor}
\\pagestyle{empty}
\\newwrite\\tpos
\\immediate\\openout\\tpos=\\jobname.pos
\\begin{document}
`

mkdirSync(args.out, { recursive: true })
const families = fontFamilies()
const fonts = ["", "\\usepackage{mathptmx}", "\\usepackage{mathpazo}", "\\usepackage[scaled]{helvet}\\renewcommand{\\familydefault}{\\sfdefault}", "\\usepackage{lmodern}"]
const env = { ...process.env, SOURCE_DATE_EPOCH: "1700000000", FORCE_SOURCE_DATE: "1" }
let made = 0
const failed: Array<number> = []
for (let seed = Number(args.from); seed <= Number(args.to); seed++) {
  const pdfPath = join(args.out, `${seed}.pdf`), jsonPath = join(args.out, `${seed}.json`)
  if (!args.force && existsSync(pdfPath) && existsSync(jsonPath)) continue
  const spec = makeTable(seed, families)
  const f = new Faker({ locale: [en, base], seed: seed + 7919 })
  const para = () => f.lorem.paragraph({ min: 3, max: 5 })
  const size = f.helpers.arrayElement(["\\small", "\\footnotesize", "\\normalsize"])
  const caption = f.datatype.boolean({ probability: 0.7 }) ? `\\noindent Table ${f.number.int({ min: 1, max: 30 })}: ${esc(f.lorem.sentence())}\\par\\smallskip\n` : ""
  const tex = `${preamble(f.helpers.arrayElement(fonts))}${para()}\\par\\medskip
${caption}\\begin{center}${size}
\\sbox0{${tabular(spec, f)}}%
\\xdef\\dims{\\the\\wd0,\\the\\ht0,\\the\\dp0}%
\\leavevmode\\pdfsavepos\\write\\tpos{\\the\\pdflastxpos,\\the\\pdflastypos,\\dims}\\usebox0
\\end{center}
${para()}
\\end{document}
`
  const dir = mkdtempSync(join(tmpdir(), "strata-tables-"))
  try {
    writeFileSync(join(dir, "t.tex"), tex)
    try {
      execFileSync("pdflatex", ["-interaction=nonstopmode", "-halt-on-error", "t.tex"], { cwd: dir, env, stdio: "ignore", timeout: 60_000 })
    } catch {
      failed.push(seed)
      if (failed.length === 1) process.stderr.write(readFileSync(join(dir, "t.log"), "utf8").split("\n").filter((l) => l.startsWith("!") || l.startsWith("l.")).slice(0, 4).join("\n") + "\n")
      continue
    }
    const pos = readFileSync(join(dir, "t.pos"), "utf8").trim().split(",").map((v) => Number.parseFloat(v))
    const pages = Number(/\/Count (\d+)/.exec(readFileSync(join(dir, "t.pdf"), "latin1"))?.[1] ?? "1")
    // pdfsavepos gives sp from the page's lower left; the box's reference point is on its baseline.
    const pt = (sp: number) => sp / 65536
    const [x, y, wd, ht, dp] = [pt(pos[0]), pt(pos[1]), pos[2], pos[3], pos[4]]
    const r2 = (v: number) => Math.round(v * 100) / 100
    writeFileSync(pdfPath, readFileSync(join(dir, "t.pdf")))
    writeFileSync(jsonPath, JSON.stringify({
      seed, producer: "pdflatex", kind: spec.kind, font: "latex", size: 10,
      rows: spec.rows, cols: spec.cols, headerRows: spec.headerRows, cells: spec.cells,
      onePage: pages === 1,
      box: { x0: r2(x), top: r2(792 - y - ht), x1: r2(x + wd), bottom: r2(792 - y + dp) }
    }))
    made++
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
process.stdout.write(`${made} tables -> ${args.out}${failed.length > 0 ? `; pdflatex failed on ${failed.join(", ")}` : ""}\n`)
