/**
 * One generated LaTeX document per seed, the second source of labelled layout data (issue 17):
 * the `.tex` source `generateLatex.ts` builds with pdflatex, and the PNG pictures it includes.
 *
 * Labels ride in the source, not in a model's guess (`LatexLabels.ts` reads them back):
 * - text kinds are set in a near-black colour that names them (`encodeColour`: the label in blue,
 *   the element's number in red and green, each channel at most 26/255, so it prints as black);
 *   a heading's number, a list item's marker, a caption's "Figure 1:", an
 *   equation's tag and a footnote's mark take their element's colour through the patched macros
 *   of the preamble (`\curcol`, `\curfn`);
 * - tables and figures are boxes: `\lbox` writes each one's page, position and size at shipout
 *   (`\pdfsavepos`) to `<job>.lbl`.
 * `spanning` names the elements set across both columns (the title block and the running heads
 * and feet of two-column documents): the others are cut at the column gap.
 *
 * All randomness is drawn here from one Faker seeded with the seed.
 */
import { deflateSync, crc32 } from "node:zlib"
import { base, en, Faker } from "@faker-js/faker"

/** The labels, in colour order: `\lc{r,g,b}` has b = index + 1. */
export const LATEX_LABELS = [
  "title", "section_header", "text", "list_item", "table", "figure", "caption", "formula", "code", "footnote", "page_header", "page_footer", "page_number"
] as const
export type LatexLabel = (typeof LATEX_LABELS)[number]

/**
 * The colour `\lc{r,g,b}` (0-255) of label `label` (index in LATEX_LABELS) and element `id` (0-99):
 * each channel 2k + 2, so that a channel read back one lower (pdfTeX writes the colour as a
 * decimal, and mutool truncates it back to a byte: 3 came back as 2) still gives k, and none is 0
 * (black text is no label).
 */
export const encodeColour = (label: number, id: number) => `${2 * (id % 10) + 2},${2 * Math.floor(id / 10) + 2},${2 * label + 2}`

export interface LatexDocument {
  readonly seed: number
  readonly tex: string
  /** Pictures the source includes, by file name. */
  readonly images: ReadonlyArray<{ readonly name: string; readonly png: Uint8Array }>
  /** Element numbers set across both columns (two-column documents only). */
  readonly spanning: ReadonlyArray<number>
  /** The first page's printed number (`\lbox` records printed numbers). */
  readonly firstPage: number
  readonly columns: 1 | 2
  readonly settings: Record<string, string | number>
}

const FONTS: ReadonlyArray<readonly [string, string]> = [
  ["computer modern", ""],
  ["lmodern", "\\usepackage[T1]{fontenc}\\usepackage{lmodern}"],
  ["mathptmx", "\\usepackage[T1]{fontenc}\\usepackage{lmodern}\\usepackage{mathptmx}"],
  ["times", "\\usepackage[T1]{fontenc}\\usepackage{lmodern}\\usepackage{times}"],
  ["mathpazo", "\\usepackage[T1]{fontenc}\\usepackage{lmodern}\\usepackage{mathpazo}"],
  ["helvet", "\\usepackage[T1]{fontenc}\\usepackage{lmodern}\\usepackage[scaled]{helvet}\\renewcommand\\familydefault{\\sfdefault}"],
  ["charter", "\\usepackage[T1]{fontenc}\\usepackage{lmodern}\\usepackage{charter}"],
  ["bookman", "\\usepackage[T1]{fontenc}\\usepackage{lmodern}\\usepackage{bookman}"],
  ["tgpagella", "\\usepackage[T1]{fontenc}\\usepackage{lmodern}\\usepackage{tgpagella}"],
  ["tgtermes", "\\usepackage[T1]{fontenc}\\usepackage{lmodern}\\usepackage{tgtermes}"],
  ["tgschola", "\\usepackage[T1]{fontenc}\\usepackage{lmodern}\\usepackage{tgschola}"],
  ["tgheros", "\\usepackage[T1]{fontenc}\\usepackage{lmodern}\\usepackage{tgheros}\\renewcommand\\familydefault{\\sfdefault}"],
  ["mathpple", "\\usepackage[T1]{fontenc}\\usepackage{lmodern}\\usepackage{mathpple}"]
]

export const esc = (s: string) =>
  s.replace(/[\\{}$&#^_%~]/g, (c) => ({ "\\": "\\textbackslash{}", "^": "\\^{}", "~": "\\~{}" } as Record<string, string>)[c] ?? `\\${c}`)
const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1)

/** A PNG of `width` x `height` RGB pixels from `pixel(x, y)` (zlib from node, no dependency). */
export const png = (width: number, height: number, pixel: (x: number, y: number) => readonly [number, number, number]): Uint8Array => {
  const raw = Buffer.alloc((width * 3 + 1) * height)
  for (let y = 0; y < height; y++) {
    raw[y * (width * 3 + 1)] = 0
    for (let x = 0; x < width; x++) raw.set(pixel(x, y), y * (width * 3 + 1) + 1 + x * 3)
  }
  const chunk = (type: string, data: Buffer) => {
    const head = Buffer.alloc(8)
    head.writeUInt32BE(data.length, 0)
    head.write(type, 4, "latin1")
    const crc = Buffer.alloc(4)
    crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])) >>> 0, 0)
    return Buffer.concat([head, data, crc])
  }
  const ihdr = Buffer.alloc(13)
  ihdr.writeUInt32BE(width, 0)
  ihdr.writeUInt32BE(height, 4)
  ihdr.set([8, 2, 0, 0, 0], 8)
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk("IHDR", ihdr), chunk("IDAT", deflateSync(raw)), chunk("IEND", Buffer.alloc(0))])
}

export const makeLatex = (seed: number): LatexDocument => {
  const f = new Faker({ locale: [en, base], seed })
  const int = (min: number, max: number) => f.number.int({ min, max })
  const chance = (p: number) => f.datatype.boolean({ probability: p })
  const pick = <T>(xs: ReadonlyArray<T>): T => xs[int(0, xs.length - 1)]
  const inline = () => pick([`$x_{${int(1, 9)}}$`, `$\\alpha + \\beta^{2}$`, `$O(n \\log n)$`, `$\\sum_{i=1}^{n} a_i$`, `$p < 0.0${int(1, 5)}$`, `$\\mathbf{x} \\in \\mathbb{R}^{${int(2, 512)}}$`, `$k=${int(2, 64)}$`])
  const sentence = () => {
    const s = esc(f.helpers.arrayElement([() => f.lorem.sentence(int(6, 18)), () => cap(f.company.catchPhrase()) + ".", () => cap(f.hacker.phrase())])())
    return chance(0.12) ? s.replace(/ (\w+)\.$/, ` $1 ${inline()}.`) : s
  }

  // Element numbers: each labelled element gets one, and with its label one colour.
  let next = 0
  const spanning: Array<number> = []
  const colour = (label: LatexLabel, span = false) => {
    const id = next++ % 100
    if (span) spanning.push(id)
    return encodeColour(LATEX_LABELS.indexOf(label), id)
  }

  const size = pick([10, 10, 11, 12])
  const columns: 1 | 2 = chance(0.35) ? 2 : 1
  const paper = chance(0.55) ? "a4paper" : "letterpaper"
  const [font, fontTex] = pick(FONTS)
  const side = columns === 2 ? int(12, 22) : int(20, 38)
  const top = int(18, 35), bottom = int(18, 35)
  const columnsep = columns === 2 ? pick([10, 12, 16, 20, 24]) : 10
  const numbered = chance(0.75)
  const headingStyle = pick(["bold", "bold", "small", "smallcaps", "italic"] as const)
  const headSize = headingStyle === "small" ? ["\\normalsize\\bfseries", "\\normalsize\\bfseries", "\\normalsize\\itshape"] : headingStyle === "smallcaps" ? ["\\large\\scshape", "\\normalsize\\scshape", "\\normalsize\\itshape"] : headingStyle === "italic" ? ["\\large\\itshape", "\\normalsize\\itshape", "\\normalsize\\itshape"] : ["\\Large\\bfseries", "\\large\\bfseries", "\\normalsize\\bfseries"]
  const parskip = chance(0.2)
  const linespread = pick([1, 1, 1, 1.05, 1.1, 1.2, 1.3])
  const captionSep = pick(["colon", "period", "endash", "quad"])
  const captionFont = pick(["small", "normalsize", "footnotesize", "small,it", "small,sf"])
  const captionLabel = pick(["bf", "normalfont", "sc", "it"])
  const firstPage = chance(0.2) ? int(2, 600) : 1
  const microtype = chance(0.3)
  const settings = { size, columns, paper, font, side, top, bottom, columnsep, headingStyle, linespread, firstPage }

  const preamble = [
    `\\documentclass[${size}pt,${paper}${columns === 2 ? ",twocolumn" : ""}]{article}`,
    fontTex,
    `\\usepackage[margin=${side}mm,top=${top}mm,bottom=${bottom}mm,columnsep=${columnsep}pt,headsep=${int(6, 12)}mm,footskip=${int(8, 14)}mm]{geometry}`,
    "\\usepackage{amsmath,amssymb,graphicx,booktabs,xcolor,tikz,fancyhdr,listings,caption}",
    microtype ? "\\usepackage{microtype}" : "",
    parskip ? `\\setlength\\parskip{${int(3, 8)}pt plus 1pt}\\setlength\\parindent{0pt}` : "",
    linespread === 1 ? "" : `\\linespread{${linespread}}`,
    `\\setcounter{secnumdepth}{${numbered ? 3 : 0}}`,
    `\\setcounter{page}{${firstPage}}`,
    "\\makeatletter",
    "\\newcommand\\lc[1]{\\color[RGB]{#1}}\\def\\curcol{0,0,0}\\def\\curfn{0,0,0}",
    // A caption's label, separator and text each in a group of their own: a colour left open would
    // close after the caption's last line, in the float's vertical list, and move what follows.
    "\\DeclareCaptionLabelFormat{lc}{{\\lc{\\curcol}#1~#2}}",
    `\\DeclareCaptionLabelSeparator{lc}{{\\lc{\\curcol}${{ colon: ":} ", period: ".} ", endash: "~--} ", quad: "}\\quad" }[captionSep]}}`,
    `\\captionsetup{labelformat=lc,labelsep=lc,font={${captionFont}},labelfont=${captionLabel},skip=${int(4, 10)}pt}`,
    "\\newwrite\\lblout\\immediate\\openout\\lblout=\\jobname.lbl",
    // The text block's left edge and width, for cutting two columns apart.
    "\\AtBeginDocument{\\immediate\\write\\lblout{area \\the\\dimexpr1in+\\hoffset+\\oddsidemargin\\relax\\space\\the\\textwidth}}",
    // The box's page, reference point (sp from the page's bottom left) and size, written at shipout.
    "\\newcommand\\lbox[2]{\\leavevmode\\sbox\\z@{#2}\\edef\\lbl@w{\\noexpand\\write\\noexpand\\lblout{#1 \\noexpand\\the\\noexpand\\c@page\\space\\noexpand\\the\\noexpand\\pdflastxpos\\space\\noexpand\\the\\noexpand\\pdflastypos\\space\\the\\wd\\z@\\space\\the\\ht\\z@\\space\\the\\dp\\z@}}\\pdfsavepos\\lbl@w\\usebox\\z@}",
    `\\renewcommand\\section{\\@startsection{section}{1}{\\z@}{-${int(8, 16)}pt \\@plus -2pt}{${int(4, 10)}pt}{\\normalfont${headSize[0]}}}`,
    `\\renewcommand\\subsection{\\@startsection{subsection}{2}{\\z@}{-${int(6, 12)}pt \\@plus -2pt}{${int(3, 8)}pt}{\\normalfont${headSize[1]}}}`,
    // Run-in or displayed third-level headings.
    `\\renewcommand\\subsubsection{\\@startsection{subsubsection}{3}{\\z@}{-${int(5, 10)}pt \\@plus -2pt}{${chance(0.5) ? "-0.5em" : "2pt"}}{\\normalfont${headSize[2]}}}`,
    "\\renewcommand\\@seccntformat[1]{{\\lc{\\curcol}\\csname the#1\\endcsname\\quad}}",
    "\\renewcommand\\@makefntext[1]{\\parindent 1em\\noindent{\\lc{\\curfn}\\hb@xt@1.8em{\\hss\\@makefnmark}#1}}",
    "\\def\\tagform@#1{\\maketag@@@{\\lc{\\curcol}(\\ignorespaces#1\\unskip\\@@italiccorr)}}",
    `\\renewcommand\\labelitemi{{\\lc{\\curcol}${pick(["$\\bullet$", "--", "$\\circ$", "$\\ast$", "\\textendash"])}}}`,
    "\\renewcommand\\labelitemii{{\\lc{\\curcol}--}}",
    `\\renewcommand\\labelenumi{{\\lc{\\curcol}${pick(["\\theenumi.", "(\\theenumi)", "\\theenumi)", "[\\theenumi]"])}}}`,
    "\\renewcommand\\labelenumii{{\\lc{\\curcol}(\\alph{enumii})}}",
    "\\makeatother",
    `\\lstset{basicstyle=\\lc{\\curcol}\\ttfamily${pick(["\\small", "\\footnotesize", ""])},columns=${pick(["fixed", "flexible"])}${chance(0.3) ? ",frame=single" : chance(0.3) ? ",frame=lines" : ""}${chance(0.3) ? ",numbers=left,numberstyle=\\lc{\\curcol}\\tiny" : ""}}`
  ]

  // Running heads and feet (fancyhdr), and the first page's style.
  const docTitle = esc(cap(f.company.catchPhrase()))
  const date = () => f.date.between({ from: "2001-01-01", to: "2026-01-01" }).toISOString().slice(0, 10)
  const stamp = () => esc(pick([
    "Preprint. Under review.",
    `Preprint submitted to ${cap(f.lorem.words(2))} ${cap(f.lorem.word())}`,
    `arXiv:${int(1501, 2612)}.${String(int(1, 29999)).padStart(5, "0")}v${int(1, 4)} [${pick(["cs.CL", "cs.LG", "math.PR", "astro-ph.GA", "q-bio.NC", "stat.ML"])}] ${int(1, 28)} ${pick(["Jan", "Mar", "Jun", "Oct", "Dec"])} ${int(2015, 2026)}`,
    `Proceedings of the ${int(2, 40)}th ${cap(f.lorem.words(2))} Conference, ${int(2001, 2026)}`,
    `Copyright ${int(1995, 2026)} ${f.company.name()}. All rights reserved.`,
    `Rev. ${int(1, 9)}.${int(0, 9)}, ${date()}`,
    `doi:10.${int(1000, 9999)}/${f.string.alphanumeric(6)}`,
    "Under review as a conference paper",
    `Technical Report ${f.string.alphanumeric(4).toUpperCase()}-${int(1, 99)}`
  ]))
  const shortTitle = pick([docTitle, esc(`${f.person.lastName()} et al.`), esc(f.company.name()), `${esc(cap(f.lorem.words(2)))}, Vol.~${int(1, 40)}, No.~${int(1, 12)}`])
  const span = columns === 2
  const run = (label: "page_header" | "page_footer", text: string) => `{\\lc{${colour(label, span)}}${text}}`
  const num = () => `{\\lc{${colour("page_number", span)}}${pick(["\\thepage", "\\thepage", "Page \\thepage", "-- \\thepage\\ --"])}}`
  const headStyle = int(0, 5)
  const sizeCmd = pick(["\\small", "\\footnotesize", "\\normalsize", "\\small\\itshape", "\\scriptsize\\scshape"])
  const head: Array<string> = ["\\fancyhf{}", `\\renewcommand\\headrulewidth{${chance(0.4) ? "0.4pt" : "0pt"}}`]
  const plain: Array<string> = ["\\fancyhf{}", "\\renewcommand\\headrulewidth{0pt}"]
  if (headStyle === 0) head.push(`\\fancyfoot[C]{${sizeCmd}${num()}}`)
  else if (headStyle === 1) head.push(`\\fancyhead[L]{${sizeCmd}${run("page_header", shortTitle)}}`, `\\fancyhead[R]{${sizeCmd}${num()}}`)
  else if (headStyle === 2) head.push(`\\fancyhead[C]{${sizeCmd}${run("page_header", chance(0.4) ? stamp() : shortTitle)}}`, `\\fancyfoot[C]{${sizeCmd}${num()}}`)
  else if (headStyle === 3) head.push(`\\fancyhead[R]{${sizeCmd}${run("page_header", shortTitle)}}`, `\\fancyfoot[${pick(["R", "C"])}]{${sizeCmd}${num()}}`, ...(chance(0.5) ? [`\\fancyfoot[L]{${sizeCmd}${run("page_footer", stamp())}}`] : []))
  else if (headStyle === 4) head.push(`\\fancyfoot[L]{${sizeCmd}${run("page_footer", stamp())}}`, `\\fancyfoot[R]{${sizeCmd}${num()}}`)
  else head.push(`\\fancyhead[L]{${sizeCmd}${num()}}`, `\\fancyhead[R]{${sizeCmd}${run("page_header", shortTitle)}}`)
  // The first page: a stamp at its foot (as preprints carry), a page number, or nothing.
  const first = int(0, 2)
  if (first === 0) plain.push(`\\fancyfoot[C]{\\small${run("page_footer", stamp())}}`)
  else if (first === 1) plain.push(`\\fancyfoot[C]{\\small${num()}}`)

  // The title block: title, authors, date, abstract (across both columns in two-column documents).
  const front: Array<string> = []
  if (chance(0.9)) {
    const env = chance(0.7) ? "center" : "flushleft"
    front.push(`\\begin{${env}}{${pick(["\\LARGE\\bfseries", "\\Large\\bfseries", "\\huge", "\\LARGE", "\\Large\\scshape"])}\\noindent{\\lc{${colour("title", span)}}${docTitle}}\\par}\\end{${env}}`)
  }
  if (chance(0.75)) front.push(`{\\centering${pick(["", "\\large", "\\itshape"])}\\noindent{\\lc{${colour("text", span)}}${Array.from({ length: int(1, 5) }, () => esc(f.person.fullName())).join(pick([", ", " \\quad ", " \\qquad "]))}}\\par}\\vspace{${int(2, 8)}pt}`)
  if (chance(0.4)) front.push(`{\\centering\\small\\noindent{\\lc{${colour("text", span)}}${esc(f.company.name())}, ${esc(f.location.city())}}\\par}\\vspace{${int(4, 10)}pt}`)
  if (chance(0.7)) {
    const abs = Array.from({ length: int(3, 7) }, sentence).join(" ")
    front.push(chance(0.5)
      ? `{\\centering\\small\\bfseries\\noindent{\\lc{${colour("section_header", span)}}Abstract}\\par}\\vspace{3pt}{\\small\\leavevmode{\\lc{${colour("text", span)}}${abs}}\\par}\\vspace{${int(6, 14)}pt}`
      : `{\\small\\leavevmode{\\lc{${colour("text", span)}}\\textbf{Abstract.} ${abs}}\\par}\\vspace{${int(6, 14)}pt}`)
  }
  if (columns === 2) front.push("\\vspace{6pt}")

  // The body: sections of paragraphs, lists, tables, figures, formulas and code.
  const images: Array<{ name: string; png: Uint8Array }> = []
  const body: Array<string> = []
  // A paragraph, its colour in a group that closes inside it: a colour open across a display
  // formula's end would close in an otherwise empty line after it and add that line.
  const para = (min: number, max: number, display = "") => {
    const c = colour("text")
    const parts = Array.from({ length: int(min, max) }, sentence)
    if (chance(0.12)) {
      const at = int(0, parts.length - 1)
      parts[at] = parts[at].replace(/\.$/, `.\\def\\curfn{${colour("footnote")}}\\footnote{${chance(0.3) ? [sentence(), sentence()].join(" ") : sentence()}}`)
    }
    const after = display !== "" && chance(0.6) ? `{\\lc{${c}}${sentence()}}` : ""
    return `{\\leavevmode{\\lc{${c}}${parts.join(" ")}}${display}${after}\\par}`
  }
  const heading = (cmd: string) => {
    const c = colour("section_header")
    return `\\def\\curcol{${c}}\\${cmd}${numbered && chance(0.1) ? "*" : ""}{{\\lc{${c}}${esc(cap(f.lorem.words(int(1, 5))))}}}`
  }
  const list = (depth: number): string => {
    const env = chance(0.4) ? "enumerate" : "itemize"
    const items = Array.from({ length: int(2, 5) }, () => {
      const c = colour("list_item")
      const nested = depth === 0 && chance(0.15) ? list(1) : ""
      return `\\def\\curcol{${c}}\\item \\leavevmode{\\lc{${c}}${chance(0.5) ? esc(cap(f.lorem.words(int(3, 9)))) : Array.from({ length: int(1, 2) }, sentence).join(" ")}}${nested}`
    })
    return `\\begin{${env}}\n${items.join("\n")}\n\\end{${env}}`
  }
  const caption = () => {
    const c = colour("caption")
    return `\\def\\curcol{${c}}\\caption{{\\lc{${c}}${sentence()}}}`
  }
  const placement = () => pick(["[t]", "[ht]", "[htbp]", "[h]", "[b]", "[tb]"])
  const table = () => {
    const cols = int(2, columns === 2 ? 4 : 6), rows = int(3, 10)
    const style = pick(["booktabs", "grid", "plain", "hlines"] as const)
    const numeric = Array.from({ length: cols }, (_, i) => i > 0 && chance(0.7))
    const cellWords = columns === 2 ? 1 : 2
    const spec = numeric.map((n) => (n ? "r" : "l")).join(style === "grid" ? "|" : "")
    const cell = (c: number) => numeric[c] ? pick([String(int(0, 9999)), f.number.float({ min: 0, max: 100, fractionDigits: 2 }).toFixed(2), `${int(0, 100)}\\%`]) : esc(cap(f.lorem.words(int(1, cellWords))))
    const head = Array.from({ length: cols }, () => esc(cap(f.lorem.word()))).join(" & ")
    const lines = Array.from({ length: rows }, () => Array.from({ length: cols }, (_, c) => cell(c)).join(" & ") + " \\\\" + (style === "hlines" || style === "grid" ? " \\hline" : ""))
    const [topRule, midRule, bottomRule] = style === "booktabs" ? ["\\toprule", "\\midrule", "\\bottomrule"] : style === "plain" ? ["", "", ""] : ["\\hline", "\\hline", ""]
    const tabular = `\\begin{tabular}{${style === "grid" ? `|${spec}|` : spec}}${topRule} ${head} \\\\${midRule} ${lines.join(" ")} ${bottomRule}\\end{tabular}`
    const sizeCmd = pick(["", "\\small", "\\footnotesize"])
    const above = chance(0.7)
    return `\\begin{table}${placement()}\\centering${sizeCmd}${above ? `${caption()}\n` : ""}\\lbox{table}{${tabular}}${above ? "" : `\n${caption()}`}\\end{table}`
  }
  const figure = () => {
    const width = columns === 2 ? int(40, 70) : int(50, 125), height = int(25, 70)
    const kind = int(0, 2)
    let art: string
    if (kind === 0) {
      const bars = int(3, 9), bw = width / bars
      art = `\\begin{tikzpicture}[x=1mm,y=1mm]\\draw[gray] (0,0) rectangle (${width},${height});${Array.from({ length: bars }, (_, i) =>
        `\\fill[${pick(["blue!50", "red!40", "green!40!black", "orange!70", "gray!60", "teal!60"])}] (${(i * bw + 1).toFixed(1)},0) rectangle (${((i + 1) * bw - 1).toFixed(1)},${int(3, height - 3)});`).join("")}${chance(0.5) ? `\\node[anchor=south west,font=\\tiny] at (1,${height - 5}) {${esc(cap(f.lorem.word()))}};` : ""}\\end{tikzpicture}`
    } else if (kind === 1) {
      const pts = Array.from({ length: int(5, 12) }, (_, i) => `(${((i * width) / 11).toFixed(1)},${int(2, height - 2)})`)
      art = `\\begin{tikzpicture}[x=1mm,y=1mm]\\draw[->] (0,0) -- (${width},0);\\draw[->] (0,0) -- (0,${height});\\draw[${pick(["blue", "red", "black!80!green"])},thick] ${pts.slice(0, Math.min(pts.length, 12)).join(" -- ")};\\end{tikzpicture}`
    } else {
      const name = `img${images.length + 1}.png`
      const w = int(60, 160), h = int(40, 120)
      const bg = [int(120, 255), int(120, 255), int(120, 255)] as const
      const blobs = Array.from({ length: int(3, 9) }, () => [int(0, w), int(0, h), int(5, 40), int(0, 200), int(0, 200), int(0, 200)])
      images.push({ name, png: png(w, h, (x, y) => {
        for (const [bx, by, r, cr, cg, cb] of blobs) if ((x - bx) ** 2 + (y - by) ** 2 < r * r) return [cr, cg, cb]
        return bg
      }) })
      art = `\\includegraphics[width=${width}mm,height=${height}mm]{${name}}`
    }
    const above = chance(0.15)
    return `\\begin{figure}${placement()}\\centering${above ? `${caption()}\n` : ""}\\lbox{figure}{${art}}${above ? "" : `\n${caption()}`}\\end{figure}`
  }
  const formula = () => {
    const c = colour("formula")
    const v = () => pick(["x", "y", "z", "n", "k", "t", "\\alpha", "\\beta", "\\lambda", "\\theta"])
    const term = () => pick([`${v()}_{${pick(["i", "k", "0", "n"])}}`, `${v()}^{${int(2, 4)}}`, `\\frac{${v()}}{${v()} + ${int(1, 9)}}`, `\\sqrt{${v()}}`, `\\sum_{i=1}^{n} ${v()}_i`, `\\int_0^1 ${v()}\\,dt`, `\\log ${v()}`])
    const expr = () => `${term()} ${pick(["+", "-", "\\cdot", "\\leq"])} ${term()}${chance(0.5) ? ` ${pick(["+", "-"])} ${term()}` : ""}`
    const env = pick(["equation", "equation", "equation*", "align", "align*"])
    const lead = `\\def\\curcol{${c}}`
    if (env.startsWith("align")) {
      return `${lead}\\begin{${env}}${Array.from({ length: int(2, 3) }, () => `\\lc{${c}}${v()} &\\lc{${c}}= ${expr()}`).join(" \\\\ ")}\\end{${env}}`
    }
    // The body in braces: a colour left open in the display moves the lines after it.
    return `${lead}\\begin{${env}}{\\lc{${c}}${v()} = ${expr()}}\\end{${env}}`
  }
  const code = () => {
    const fn = f.hacker.verb().replace(/\W/g, "") + cap(f.hacker.noun().replace(/\W/g, ""))
    const lines = [`def ${fn}(${f.lorem.word()}, ${f.lorem.word()}):`]
    for (let i = 0; i < int(2, 8); i++) lines.push(`    ${f.lorem.word()} = ${f.lorem.word()}.${f.hacker.verb().replace(/\W/g, "")}(${int(0, 99)})`)
    lines.push(`    return ${f.lorem.word()}`)
    const c = colour("code")
    // verbatim sets its font in vertical mode, where a colour moves what follows: it is coloured
    // from outside, in a minipage (no page break inside it in either build).
    return chance(0.5)
      ? `\\par\\medskip\\noindent{\\lc{${c}}\\begin{minipage}{\\linewidth}\\begin{verbatim}\n${lines.join("\n")}\n\\end{verbatim}\\end{minipage}}\\par\\medskip`
      : `\\def\\curcol{${c}}\\begin{lstlisting}\n${lines.join("\n")}\n\\end{lstlisting}`
  }

  const sections = int(2, 6)
  for (let s = 0; s < sections; s++) {
    body.push(heading("section"))
    const parts = int(2, 7)
    for (let i = 0; i < parts; i++) {
      const r = f.number.float({ min: 0, max: 1 })
      if (r < 0.42) body.push(para(2, 8))
      else if (r < 0.52) body.push(list(0))
      else if (r < 0.6) body.push(table())
      else if (r < 0.68) body.push(figure())
      else if (r < 0.73) body.push(code())
      else if (r < 0.81) {
        // A formula inside a paragraph (text around it in the paragraph's colour) or between paragraphs.
        if (chance(0.5)) body.push(para(1, 3, formula()))
        else body.push(para(1, 3), formula())
      } else if (r < 0.93) body.push(heading("subsection"))
      else body.push(heading("subsubsection"))
      if (chance(0.5)) body.push(para(1, 6))
    }
  }

  const tex = [
    ...preamble,
    "\\pagestyle{fancy}",
    ...head,
    `\\fancypagestyle{plain}{${plain.join("")}}`,
    "\\begin{document}",
    "\\thispagestyle{plain}",
    columns === 2 ? `\\twocolumn[{${front.join("\n")}}]` : front.join("\n"),
    body.join("\n\n"),
    "\\end{document}",
    ""
  ].join("\n")
  return { seed, tex, images, spanning, firstPage, columns, settings }
}
