/**
 * One generated document per seed, as data the browser lays out (`Paginate.ts`): the page's
 * geometry and style, the flow of body blocks as HTML, and the furniture of each page. Every
 * block element carries its label in `data-label`; labels are the reader's block kinds
 * (`packages/core/src/Document.ts`): title, section_header, text, list_item, table, figure,
 * caption, formula, code, footnote, page_header, page_footer, page_number.
 *
 * All randomness is drawn here from one Faker seeded with the seed, so a seed gives the same
 * document on any machine with the same font list and Faker version.
 */
import { base, en, Faker } from "@faker-js/faker"

export interface DocumentSpec {
  readonly seed: number
  /** Page size in CSS px (96 per inch). */
  readonly pageWidth: number
  readonly pageHeight: number
  readonly paper: "A4" | "Letter"
  readonly margin: { readonly top: number; readonly right: number; readonly bottom: number; readonly left: number }
  readonly columns: 1 | 2
  readonly columnGap: number
  readonly css: string
  /** Full-width blocks at the top of page 1 (title, authors, abstract). */
  readonly front: ReadonlyArray<string>
  /** Body blocks in order, flowed through the columns. */
  readonly flow: ReadonlyArray<string>
  /** Per page, in order (the last is repeated): header and footer HTML, with `{page}` and `{pages}` to fill. */
  readonly header: string | null
  readonly footer: string | null
  /** Footnotes of page i (index into the list; pages past its end have none). */
  readonly footnotes: ReadonlyArray<ReadonlyArray<string>>
  readonly fonts: { readonly body: string; readonly heading: string; readonly mono: string }
}

const MM = 96 / 25.4
const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1)

/** Families fit for running text: symbol, dingbat and math fonts left out. */
export const textFamilies = (families: ReadonlyArray<string>) =>
  families.filter((f) => !/symbol|dingbat|D050000L|math|OpenSymbol|Z003|emoji/i.test(f))

const MATH = ["α", "β", "γ", "λ", "μ", "σ", "θ", "ω", "∑", "∫", "∂", "√", "≤", "≥", "≈", "±", "×", "∞", "∇"]

export const makeDocument = (seed: number, families: ReadonlyArray<string>): DocumentSpec => {
  const f = new Faker({ locale: [en, base], seed })
  const int = (min: number, max: number) => f.number.int({ min, max })
  const chance = (p: number) => f.datatype.boolean({ probability: p })
  const pick = <T>(xs: ReadonlyArray<T>): T => xs[int(0, xs.length - 1)]
  const sentence = () => f.helpers.arrayElement([() => f.lorem.sentence(int(6, 18)), () => cap(f.company.catchPhrase()) + ".", () => cap(f.hacker.phrase())])()
  const paragraph = (min: number, max: number) => Array.from({ length: int(min, max) }, sentence).join(" ")

  const mono = families.filter((x) => /mono/i.test(x))
  const fonts = textFamilies(families).filter((x) => !mono.includes(x))
  const body = pick(fonts)
  const heading = chance(0.5) ? body : pick(fonts)
  const monoFont = mono.length > 0 ? pick(mono) : "monospace"
  const paper = chance(0.6) ? "A4" : "Letter"
  const [pageWidth, pageHeight] = paper === "A4" ? [210 * MM, 297 * MM] : [8.5 * 96, 11 * 96]
  const columns: 1 | 2 = chance(0.35) ? 2 : 1
  const size = columns === 2 ? int(8, 10) + pick([0, 0.5]) : int(9, 12) + pick([0, 0.5])
  const leading = 1.15 + int(0, 8) / 20
  const side = int(14, 30) * MM
  const margin = { top: int(18, 32) * MM, right: side, bottom: int(18, 30) * MM, left: chance(0.8) ? side : side + int(0, 10) * MM }
  // A quarter of documents set their headings bold at the body size (only weight and space mark them).
  const headingScale = chance(0.25) ? 1 : 1.15 + int(0, 6) / 10
  const numbered = chance(0.5)
  const upper = chance(0.15)
  const justify = chance(0.5)
  const indent = chance(0.4)
  const paraGap = indent ? int(0, 3) : int(4, 10)
  const tableStyle = pick(["grid", "rules", "plain", "zebra", "rows"] as const)
  // Footnotes: marker, rule above, size, and whether they come at all (several styles, as in real papers).
  const fnMarker = pick(["sup", "sup", "dot", "symbol", "bracket"] as const)
  const fnRule = chance(0.6)
  const fnSize = Math.max(6.5, size - pick([1, 1.5, 2, 2.5]))
  const fnChance = pick([0.1, 0.2, 0.35])
  // Display formulas in a math font, or in the body font's italic (no math font to give them away).
  const formulaFont = chance(0.6) ? `"DejaVu Math TeX Gyre", "${body}"` : `"${body}"`
  const formulaItalic = formulaFont === `"${body}"` || chance(0.2)

  const css = `
    body { margin: 0; font-family: "${body}"; font-size: ${size}pt; line-height: ${leading}; color: #111; }
    .pg { width: ${pageWidth}px; height: ${pageHeight - 2}px; position: relative; overflow: hidden; break-after: page; }
    p { margin: 0 0 ${paraGap}px 0; text-align: ${justify ? "justify" : "left"}; ${indent ? `text-indent: ${int(10, 24)}px;` : ""} }
    h1, h2, h3, h4 { font-family: "${heading}"; line-height: 1.2; ${upper ? "text-transform: uppercase; letter-spacing: 0.03em;" : ""} }
    h1.title { font-size: ${(size * (1.8 + int(0, 8) / 10)).toFixed(1)}pt; margin: 0 0 ${int(6, 16)}px; text-align: ${pick(["left", "center"])}; font-weight: ${chance(0.7) ? 700 : 400}; text-transform: none; }
    h2 { font-size: ${(size * headingScale * 1.25).toFixed(1)}pt; margin: ${int(8, 16)}px 0 ${int(4, 8)}px; font-weight: ${chance(0.8) ? 700 : 400}; }
    h3 { font-size: ${(size * headingScale).toFixed(1)}pt; margin: ${int(6, 12)}px 0 ${int(3, 6)}px; font-weight: 700; }
    h4 { font-size: ${size}pt; margin: ${int(4, 10)}px 0 ${int(2, 4)}px; font-weight: 700; font-style: ${chance(0.5) ? "italic" : "normal"}; }
    .authors { text-align: inherit; margin: 0 0 ${int(8, 14)}px; font-style: ${chance(0.5) ? "italic" : "normal"}; }
    .abstract { margin: 0 ${int(0, 40)}px ${int(10, 18)}px; font-size: ${size - 0.5}pt; text-indent: 0; }
    ul, ol { list-style: none; margin: 0 0 ${paraGap + 2}px 0; padding: 0; }
    li { padding-left: ${int(14, 26)}px; position: relative; margin: 0 0 ${int(0, 4)}px; text-align: left; }
    li .m { display: inline-block; width: ${int(14, 22)}px; margin-left: -${int(14, 22)}px; }
    li li { margin-top: 2px; }
    table { border-collapse: collapse; margin: ${int(4, 10)}px auto ${int(4, 10)}px ${chance(0.5) ? "0" : "auto"}; font-size: ${size - pick([0, 0.5, 1])}pt; line-height: 1.2; }
    td, th { padding: ${int(1, 4)}px ${int(4, 10)}px; text-align: left; ${tableStyle === "grid" ? "border: 0.8px solid #333;" : ""} }
    ${tableStyle === "rules" ? "table { border-top: 1.2px solid #000; border-bottom: 1.2px solid #000; } thead th { border-bottom: 0.8px solid #000; }" : ""}
    ${tableStyle === "zebra" ? "tbody tr:nth-child(odd) td { background: #e8e8ee; } thead th { background: #ccd; }" : ""}
    ${tableStyle === "rows" ? "tr { border-bottom: 0.5px solid #999; } thead th { font-weight: 400; font-style: italic; }" : ""}
    td.n { text-align: right; }
    figure { margin: ${int(6, 12)}px 0; text-align: center; }
    figure img, figure svg { display: block; margin: 0 auto; }
    .caption { font-size: ${size - pick([0, 0.5, 1])}pt; margin: ${int(3, 8)}px 0 ${int(6, 10)}px; text-align: ${pick(["left", "center", "justify"])}; text-indent: 0; font-style: ${chance(0.3) ? "italic" : "normal"}; }
    pre { font-family: "${monoFont}"; font-size: ${size - pick([1, 1.5, 2])}pt; line-height: 1.25; margin: ${int(4, 10)}px 0; white-space: pre; overflow: hidden;
      ${chance(0.5) ? `background: #f0f0f0; padding: ${int(3, 8)}px;` : ""} ${chance(0.3) ? "border-left: 2px solid #888; padding-left: 6px;" : ""} }
    .formula { text-align: ${chance(0.8) ? "center" : "left"}; margin: ${int(6, 12)}px 0; font-family: ${formulaFont}; font-style: ${formulaItalic ? "italic" : "normal"}; text-indent: 0; }
    .formula .eqn { float: right; font-family: "${body}"; }
    .fn { font-size: ${fnSize}pt; line-height: 1.2; margin: 2px 0 0; text-indent: ${chance(0.3) ? int(6, 14) : 0}px; text-align: ${chance(0.3) ? "justify" : "left"}; }
    .fns { padding-top: 2px; }
    ${fnRule ? `.fns::before { content: ""; display: block; width: ${pick(["100%", "33%", "20%"])}; border-top: 0.6px solid #555; margin-bottom: 3px; }` : ""}
    .hd, .ft { position: absolute; left: ${margin.left}px; right: ${margin.right}px; font-size: ${Math.max(7, size - int(1, 3))}pt; line-height: 1.2; display: flex; justify-content: space-between; color: ${pick(["#111", "#444", "#666"])}; }
    .hd { top: ${Math.max(8 * MM, margin.top - int(10, 16) * MM)}px; ${chance(0.4) ? "border-bottom: 0.6px solid #777; padding-bottom: 2px;" : ""} ${chance(0.4) ? "font-style: italic;" : ""} }
    .ft { bottom: ${Math.max(6 * MM, margin.bottom - int(8, 14) * MM)}px; }
    .hd span:only-child, .ft span:only-child { margin: 0 auto; }
  `

  const docTitle = cap(f.company.catchPhrase())
  const shortTitle = pick([docTitle, f.company.name(), `${f.person.lastName()} et al.`, `${cap(f.lorem.words(2))} Report ${int(2001, 2026)}`])
  const front: Array<string> = []
  if (chance(0.85)) front.push(`<h1 class="title" data-label="title">${esc(docTitle)}</h1>`)
  if (chance(0.6)) front.push(`<p class="authors" data-label="text">${Array.from({ length: int(1, 4) }, () => esc(f.person.fullName())).join(", ")}</p>`)
  if (chance(0.35)) front.push(`<p class="abstract" data-label="text"><b>Abstract.</b> ${esc(paragraph(3, 6))}</p>`)
  const flowFront = columns === 1 ? front.splice(0) : []

  const flow: Array<string> = [...flowFront]
  const counters = [0, 0, 0]
  let figures = 0, tables = 0, equations = 0
  const headingHtml = (level: 2 | 3 | 4) => {
    counters[level - 2]++
    for (let i = level - 1; i < counters.length; i++) counters[i] = 0
    const number = numbered ? counters.slice(0, level - 1).join(".") + (level === 2 ? "." : "") + " " : ""
    const text = cap(level === 2 ? f.lorem.words(int(1, 4)) : f.lorem.words(int(2, 6)))
    return `<h${level} data-label="section_header">${esc(number + text)}</h${level}>`
  }
  const listHtml = () => {
    const ordered = chance(0.4)
    const marker = ordered ? pick(["1.", "1)", "(a)", "i."]) : pick(["•", "–", "▪", "◦", "*"])
    const mark = (i: number) => ordered
      ? marker === "(a)" ? `(${String.fromCharCode(97 + i)})` : marker === "i." ? `${["i", "ii", "iii", "iv", "v", "vi", "vii"][i]}.` : marker.replace("1", String(i + 1))
      : marker
    const items = Array.from({ length: int(2, 6) }, (_, i) => {
      const text = chance(0.5) ? cap(f.lorem.words(int(3, 9))) : paragraph(1, 2)
      const nested = chance(0.12)
        ? `<ul>${Array.from({ length: int(2, 3) }, () => `<li data-label="list_item"><span class="m">–</span>${esc(cap(f.lorem.words(int(3, 8))))}</li>`).join("")}</ul>`
        : ""
      return `<li data-label="list_item"><span class="m">${mark(i)}</span>${esc(text)}${nested}</li>`
    })
    return `<${ordered ? "ol" : "ul"}>${items.join("")}</${ordered ? "ol" : "ul"}>`
  }
  const tableHtml = () => {
    const cols = int(2, columns === 2 ? 4 : 6)
    const rows = int(3, 10)
    const head = Array.from({ length: cols }, (_, i) => (i === 0 ? cap(f.lorem.word()) : cap(f.lorem.words(int(1, 2)))))
    const numeric = Array.from({ length: cols }, (_, i) => i > 0 && chance(0.7))
    const cell = (c: number) => numeric[c]
      ? `<td class="n">${pick([f.number.int({ min: 0, max: 9999 }).toLocaleString("en-US"), f.number.float({ min: 0, max: 100, fractionDigits: 2 }).toFixed(2), `${f.number.int({ min: 0, max: 100 })}%`])}</td>`
      : `<td>${esc(cap(f.lorem.words(int(1, 3))))}</td>`
    tables++
    const caption = `<p class="caption" data-label="caption">${pick(["Table", "TABLE", "Tab."])} ${tables}${pick([":", ".", " –"])} ${esc(sentence())}</p>`
    const table = `<table data-label="table"><thead><tr>${head.map((h) => `<th>${esc(h)}</th>`).join("")}</tr></thead><tbody>${
      Array.from({ length: rows }, () => `<tr>${Array.from({ length: cols }, (_, c) => cell(c)).join("")}</tr>`).join("")
    }</tbody></table>`
    return chance(0.75) ? caption + table : table + caption
  }
  const figureHtml = () => {
    figures++
    const width = int(120, columns === 2 ? 230 : 420)
    const height = int(80, 240)
    const fill = () => `hsl(${int(0, 359)} ${int(30, 80)}% ${int(35, 75)}%)`
    let art: string
    if (chance(0.5)) {
      const bars = int(3, 9)
      const bw = width / bars
      art = `<svg data-label="figure" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}"><rect x="0" y="0" width="${width}" height="${height}" fill="none" stroke="#444"/>${
        Array.from({ length: bars }, (_, i) => {
          const h = int(10, height - 10)
          return `<rect x="${(i * bw + 3).toFixed(1)}" y="${height - h}" width="${(bw - 6).toFixed(1)}" height="${h}" fill="${fill()}"/>`
        }).join("")
      }</svg>`
    } else {
      // A raster picture: a PNG drawn on a canvas in the page (Paginate.ts), from these shapes.
      const shapes = Array.from({ length: int(4, 12) }, () => [int(0, width), int(0, height), int(8, 80), fill()].join(","))
      art = `<img data-label="figure" width="${width}" height="${height}" data-shapes="${shapes.join(";")}" data-bg="${fill()}">`
    }
    const caption = `<p class="caption" data-label="caption">${pick(["Figure", "Fig.", "FIGURE"])} ${figures}${pick([":", ".", " –"])} ${esc(sentence())}</p>`
    return `<figure>${art}${caption}</figure>`
  }
  const codeHtml = () => {
    const fn = f.hacker.verb().replace(/\W/g, "") + cap(f.hacker.noun().replace(/\W/g, ""))
    const lines = [`function ${fn}(${f.lorem.word()}, ${f.lorem.word()}) {`]
    for (let i = 0; i < int(2, 8); i++) lines.push(`  ${pick(["const", "let", "return", "if (", "for ("])} ${f.lorem.word()} = ${f.lorem.word()}.${f.hacker.verb().replace(/\W/g, "")}(${int(0, 99)});`)
    lines.push("}")
    return `<pre data-label="code">${esc(lines.join("\n"))}</pre>`
  }
  const formulaHtml = () => {
    equations++
    const v = () => pick(["x", "y", "z", "n", "k", "t", ...MATH.slice(0, 8)])
    const body = `${v()} = ${pick(MATH.slice(8))} ${v()}<sub>${pick(["i", "k", "0", "n"])}</sub> ${pick(["+", "−", "·"])} ${v()}<sup>${int(2, 4)}</sup> ${pick(MATH.slice(8))} ${int(1, 9)}`
    return `<p class="formula" data-label="formula">${body}${chance(0.6) ? ` <span class="eqn">(${equations})</span>` : ""}</p>`
  }

  const sections = int(2, 6)
  for (let s = 0; s < sections; s++) {
    flow.push(headingHtml(2))
    const parts = int(2, 7)
    for (let i = 0; i < parts; i++) {
      const r = f.number.float({ min: 0, max: 1 })
      if (r < 0.45) flow.push(`<p data-label="text">${esc(paragraph(2, 8))}</p>`)
      else if (r < 0.55) flow.push(listHtml())
      else if (r < 0.63) flow.push(tableHtml())
      else if (r < 0.71) flow.push(figureHtml())
      else if (r < 0.76) flow.push(codeHtml())
      else if (r < 0.81) flow.push(formulaHtml())
      else if (r < 0.93) flow.push(headingHtml(3))
      else flow.push(headingHtml(4))
      if (chance(0.5)) flow.push(`<p data-label="text">${esc(paragraph(1, 6))}</p>`)
    }
  }

  const number = pick(["{page}", "{page}", "Page {page}", "Page {page} of {pages}", "– {page} –", "{page}/{pages}"])
  const pageNo = `<span data-label="page_number">${number}</span>`
  // Running text, and the stamps real PDFs carry at their edges: copyright and licence lines,
  // download stamps, preprint and revision lines, URLs and DOIs.
  const date = () => f.date.between({ from: "2001-01-01", to: "2026-01-01" }).toISOString().slice(0, 10)
  const stamp = () => pick([
    `© ${int(1995, 2026)} ${f.company.name()}. All rights reserved.`,
    `Downloaded from ${f.internet.url()} on ${date()}`,
    `Preprint submitted to ${cap(f.lorem.words(2))} ${cap(f.lorem.word())}`,
    `Rev. ${int(1, 9)}.${int(0, 9)} – ${date()}`,
    `doi:10.${int(1000, 9999)}/${f.string.alphanumeric(6)}`,
    `${f.internet.url()}`,
    `This work is licensed under a Creative Commons Attribution ${pick(["4.0", "3.0"])} License.`
  ])
  const runText = (label: string) => `<span data-label="${label}">${esc(chance(0.25) ? stamp() : pick([shortTitle, docTitle, f.company.name(), `${cap(f.lorem.words(2))}, Vol. ${int(1, 40)}, No. ${int(1, 12)}`]))}</span>`
  const style = int(0, 5)
  const header = style === 0 ? null : style === 1 ? runText("page_header") : style === 2 ? `${runText("page_header")}${pageNo}` : style === 3 ? `${pageNo}${runText("page_header")}` : chance(0.5) ? runText("page_header") : null
  const footer = style === 2 || style === 3 ? (chance(0.4) ? runText("page_footer") : null) : chance(0.8) ? (chance(0.4) ? `${runText("page_footer")}${pageNo}` : pageNo) : null
  let noteNumber = 0
  const noteMark = () => {
    noteNumber++
    return fnMarker === "sup" ? `<sup>${noteNumber}</sup>` : fnMarker === "dot" ? `${noteNumber}.` : fnMarker === "bracket" ? `[${noteNumber}]` : ["*", "†", "‡", "§"][(noteNumber - 1) % 4]
  }
  const footnotes = Array.from({ length: 8 }, () =>
    chance(fnChance) ? Array.from({ length: int(1, 3) }, () => `<p class="fn" data-label="footnote">${noteMark()} ${esc(chance(0.3) ? paragraph(2, 3) : sentence())}</p>`) : [])

  return {
    seed, pageWidth, pageHeight, paper, margin, columns, columnGap: int(5, 10) * MM, css, front, flow, header, footer, footnotes,
    fonts: { body, heading, mono: monoFont }
  }
}
