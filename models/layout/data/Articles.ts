/**
 * One-page magazine articles for the reading-order bench (`bench/pdf/ArticleOrder.ts`): two or
 * three columns of running text (CSS multicol) with the things that upset reading order: sidebars
 * (a shaded or framed aside inside a column, sometimes cutting a paragraph mid-sentence, or a
 * panel set beside the columns), pull quotes (large type repeating a body sentence, inside a
 * column or spanning the columns, always cutting a paragraph) and figures or tables with their
 * captions (in a column, or spanning the columns between two bands of text).
 *
 * Every unit carries `data-k` (its kind) and the DOM order is the reading order a reader expects
 * (the rule the bench scores, stated here once):
 * - a paragraph is read whole; an aside that cuts it (sidebar, pull quote) comes after it;
 * - a sidebar is read as a unit, where it stands in the flow (after the paragraph above it, or
 *   the paragraph it cuts); a panel set beside the columns comes after the page's main flow;
 * - a pull quote repeats body text; it is kept (dropping it would lose text if it is not one),
 *   after the paragraph it sits in;
 * - a caption stays beside its figure or table.
 *
 * All randomness comes from one Faker seeded with the seed.
 */
import { base, en, Faker } from "@faker-js/faker"

export interface ArticleSpec {
  readonly seed: number
  readonly columns: 2 | 3
  /** Page size in CSS px. */
  readonly width: number
  readonly height: number
  /** A whole HTML document, laid out on one page. */
  readonly html: string
}

const MM = 96 / 25.4
const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1)

export const makeArticle = (seed: number, families: ReadonlyArray<string>): ArticleSpec => {
  const f = new Faker({ locale: [en, base], seed })
  const int = (min: number, max: number) => f.number.int({ min, max })
  const chance = (p: number) => f.datatype.boolean({ probability: p })
  const pick = <T>(xs: ReadonlyArray<T>): T => xs[int(0, xs.length - 1)]
  const sentence = () => f.lorem.sentence(int(7, 16))
  const sentences = (min: number, max: number) => Array.from({ length: int(min, max) }, sentence)

  const serif = families.filter((x) => /serif|times|libertin|gentium|charis|tinos|roman|georgia|liberation serif|dejavu serif|noto serif/i.test(x) && !/sans/i.test(x))
  const sans = families.filter((x) => /sans|arial|helvet|carlito|lato|open|roboto|cantarell/i.test(x) && !/mono/i.test(x))
  const body = pick(serif.length > 0 ? serif : ["serif"])
  const other = pick(sans.length > 0 ? sans : ["sans-serif"])
  const columns: 2 | 3 = chance(0.5) ? 2 : 3
  const [width, height] = chance(0.5) ? [210 * MM, 297 * MM] : [8.5 * 96, 11 * 96]
  const size = columns === 3 ? int(8, 9) + pick([0, 0.5]) : int(9, 10) + pick([0, 0.5])
  const leading = 1.2 + int(0, 4) / 20
  const margin = int(14, 22) * MM
  const gap = int(4, 8) * MM
  const indent = chance(0.5)
  const justify = chance(0.6)
  const panelStyle = () => pick([`background: hsl(${int(0, 359)} ${int(20, 50)}% ${int(86, 94)}%);`, "border: 0.8pt solid #333;", `background: #eee; border-top: 2pt solid hsl(${int(0, 359)} 60% 40%);`])

  const css = `
    @page { margin: 0; }
    body { margin: 0; font-family: "${body}"; font-size: ${size}pt; line-height: ${leading}; color: #111; }
    .pg { width: ${width}px; height: ${height - 2}px; position: relative; overflow: hidden; }
    .in { position: absolute; inset: ${margin}px; display: flex; flex-direction: column; }
    h1 { font-size: ${size * 2.4}pt; line-height: 1.1; margin: 0 0 ${int(4, 10)}px; font-family: "${pick([body, other])}"; }
    .deck { font-size: ${size * 1.25}pt; margin: 0 0 ${int(8, 14)}px; font-style: italic; }
    .row { flex: 1; min-height: 0; display: flex; gap: ${gap}px; }
    .main { flex: 1; min-width: 0; columns: ${columns}; column-gap: ${gap}px; column-fill: auto; height: 100%; overflow: hidden; }
    .p { margin: 0 0 ${indent ? 0 : int(4, 8)}px; text-align: ${justify ? "justify" : "left"}; ${indent ? `text-indent: ${int(10, 18)}px;` : ""} }
    h2 { font-size: ${size * 1.3}pt; margin: ${int(6, 10)}px 0 ${int(3, 5)}px; font-family: "${other}"; break-after: avoid; }
    .sb { ${panelStyle()} padding: ${int(5, 9)}px; margin: ${int(6, 10)}px 0; font-family: "${other}"; font-size: ${size - pick([0.5, 1])}pt; text-indent: 0; text-align: left; break-inside: avoid; }
    .sb h3 { font-size: ${size + 1}pt; margin: 0 0 3px; }
    .sb p { margin: 0 0 4px; }
    .side { flex: none; width: ${columns === 3 ? 30 : 26}%; align-self: flex-start; }
    .side.left { order: -1; }
    .pq { font-size: ${(size * (1.5 + int(0, 6) / 10)).toFixed(1)}pt; line-height: 1.15; margin: ${int(6, 10)}px 0; text-indent: 0; text-align: ${pick(["left", "center"])};
      font-style: ${chance(0.6) ? "italic" : "normal"}; font-weight: ${chance(0.4) ? 700 : 400}; color: hsl(${int(0, 359)} 50% 30%); break-inside: avoid;
      ${chance(0.5) ? "border-top: 1.2pt solid #333; border-bottom: 1.2pt solid #333; padding: 4px 0;" : ""} }
    .span { column-span: all; }
    figure { margin: ${int(6, 10)}px 0; break-inside: avoid; text-indent: 0; }
    figure svg { display: block; margin: 0 auto; }
    .cap { font-size: ${size - 1}pt; margin: 3px 0 0; font-family: "${pick([body, other])}"; font-style: ${chance(0.4) ? "italic" : "normal"}; text-align: left; text-indent: 0; }
    table { border-collapse: collapse; font-size: ${size - 1}pt; margin: 3px 0; width: 100%; }
    td, th { padding: 1px 4px; text-align: left; border-bottom: 0.5pt solid #888; }
  `
  let figures = 0
  const figure = (span: boolean) => {
    figures++
    const w = span ? int(300, 480) : int(110, 170)
    const h = int(70, 140)
    const bars = int(3, 8)
    const art = `<svg data-k="figure" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}"><rect x="0" y="0" width="${w}" height="${h}" fill="none" stroke="#444"/>${
      Array.from({ length: bars }, (_, i) => {
        const bh = int(10, h - 10)
        return `<rect x="${(i * w / bars + 3).toFixed(1)}" y="${h - bh}" width="${(w / bars - 6).toFixed(1)}" height="${bh}" fill="hsl(${int(0, 359)} 60% 50%)"/>`
      }).join("")
    }</svg>`
    const caption = `<p class="cap" data-k="caption">${pick(["Figure", "Fig.", "FIGURE"])} ${figures}${pick([":", ".", " –"])} ${esc(sentence())}</p>`
    return `<figure class="${span ? "span" : ""}">${art}${caption}</figure>`
  }
  const table = () => {
    figures++
    const cols = columns === 3 ? 2 : int(2, 3)
    const rows = Array.from({ length: int(3, 5) }, () => `<tr>${Array.from({ length: cols }, (_, c) => `<td>${c === 0 ? esc(cap(f.lorem.word())) : String(int(10, 999))}</td>`).join("")}</tr>`).join("")
    return `<figure><p class="cap" data-k="caption">Table ${figures}. ${esc(sentence())}</p><table data-k="table"><tbody>${rows}</tbody></table></figure>`
  }
  const sidebar = () =>
    `<aside class="sb" data-k="sidebar"><h3>${esc(cap(f.lorem.words(int(2, 4))))}</h3>${Array.from({ length: int(1, 2) }, () => `<p>${esc(sentences(2, 3).join(" "))}</p>`).join("")}</aside>`
  const pullQuote = (text: string, span: boolean) => `<blockquote class="pq${span ? " span" : ""}" data-k="pullquote">“${esc(text)}”</blockquote>`

  // The flow: paragraphs, some cut by an aside at a word inside a sentence.
  const flow: Array<string> = []
  const paragraphs = int(8, 14)
  let sidebars = 0, quotes = 0, figs = 0
  for (let i = 0; i < paragraphs; i++) {
    if (i > 0 && chance(0.15)) flow.push(`<h2 data-k="heading">${esc(cap(f.lorem.words(int(2, 4))))}</h2>`)
    const said = sentences(3, 7)
    const r = f.number.float({ min: 0, max: 1 })
    if (i > 0 && r < 0.3 && quotes < 2) {
      quotes++
      // Cut inside a sentence: a few words of the sentence before the cut, the rest after it.
      const words = said.join(" ").split(" ")
      const at = int(Math.floor(words.length * 0.3), Math.floor(words.length * 0.7))
      const quote = pick(said).replace(/\.$/, "")
      flow.push(`<div class="p" data-k="body">${esc(words.slice(0, at).join(" "))} ${pullQuote(quote, chance(0.3))}${esc(words.slice(at).join(" "))}</div>`)
    } else if (i > 0 && r < 0.45 && sidebars < 1) {
      sidebars++
      const words = said.join(" ").split(" ")
      const at = int(Math.floor(words.length * 0.3), Math.floor(words.length * 0.7))
      flow.push(`<div class="p" data-k="body">${esc(words.slice(0, at).join(" "))} ${sidebar()}${esc(words.slice(at).join(" "))}</div>`)
    } else {
      flow.push(`<div class="p" data-k="body">${esc(said.join(" "))}</div>`)
      if (i > 0 && r < 0.55 && sidebars < 2) {
        sidebars++
        flow.push(sidebar())
      } else if (i > 0 && r < 0.75 && figs < 2) {
        figs++
        flow.push(chance(0.25) ? table() : figure(chance(0.4)))
      }
    }
  }
  const side = chance(0.35) ? `<div class="side sb${chance(0.4) ? " left" : ""}" data-k="sidebar"><h3>${esc(cap(f.lorem.words(int(2, 3))))}</h3>${
    Array.from({ length: int(2, 4) }, () => `<p>${esc(sentences(2, 3).join(" "))}</p>`).join("")
  }</div>` : ""
  const html = `<!doctype html><html><head><meta charset="utf-8"><style>${css}</style></head><body><div class="pg"><div class="in">` +
    `<h1 data-k="title">${esc(cap(f.company.catchPhrase()))}</h1>${chance(0.6) ? `<p class="deck" data-k="body">${esc(sentence())}</p>` : ""}` +
    `<div class="row"><div class="main">${flow.join("")}</div>${side}</div></div></div></body></html>`
  return { seed, columns, width, height, html }
}
