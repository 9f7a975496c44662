/**
 * Handwriting-like notes for the OCR benches (issue 17, item 6): a page of short lines in one of
 * Debian's handwriting fonts, rendered by sharp's SVG renderer (librsvg with fontconfig) at 300 dpi,
 * each word jittered (baseline ±6%, rotation ±2°, size ±7%) and the page slanted −12° to +12°.
 * The fonts come from apt (fonts-dkg-handwriting fonts-breip fonts-femkeklaver fonts-dancingscript
 * fonts-humor-sans fonts-kristi fonts-rufscript fonts-bwht fonts-comic-neue fonts-ecolier-court
 * fonts-tlwg-purisa fonts-kaushanscript); a missing one falls back to a printed face.
 */
import { prng } from "../../packages/ocr/test/support/SyntheticPages.ts"

/** Family names as fontconfig knows them; Comic Neue is a hand-lettered print face, the control. */
export const FONTS = [
  { family: "DkgHandwriting", style: "print" },
  { family: "Breip", style: "print" },
  { family: "femkeklaver", style: "print" },
  { family: "Humor Sans", style: "print" },
  { family: "Because We Build", style: "print" },
  { family: "Because We Learn", style: "print" },
  { family: "Rufscript", style: "script" },
  { family: "Dancing Script", style: "cursive" },
  { family: "Kristi", style: "cursive" },
  { family: "Ecolier_court", style: "cursive" },
  { family: "Purisa", style: "print" },
  { family: "Kaushan Script", style: "script" },
  { family: "Comic Neue", style: "control (hand-lettered print face)" }
]

const WORDS = (
  "please call the office before friday about the invoice and the meeting notes " +
  "remember to send the report to Anna with the new figures and the map of the river " +
  "we agreed to meet again next week at ten in the library after the lecture " +
  "thank you for the lovely dinner and the books I will return them soon " +
  "buy milk bread eggs apples and coffee pick up the parcel at 4 pm"
).split(" ")

const escapeXml = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")

/** A note of `lines` lines in one font: SVG text, each word jittered, the page slanted; the truth lines. */
export const note = (family: string, seed: number, lines = 9) => {
  const rand = prng(seed)
  const width = 2480
  const size = 62 + Math.round(rand() * 12) // about 15-18 pt at 300 dpi
  const slant = -12 + rand() * 24 // degrees of skewX
  const out: Array<string> = []
  const texts: Array<string> = []
  let y = 220
  for (let l = 0; l < lines; l++) {
    const n = 5 + Math.floor(rand() * 4)
    const words = Array.from({ length: n }, () => WORDS[Math.floor(rand() * WORDS.length)])
    if (l === 0) words[0] = words[0][0].toUpperCase() + words[0].slice(1)
    out.push(words.join(" "))
    // One <text> a line so the font's own advances space the words; tspans jitter each word.
    const spans: Array<string> = []
    let offset = 0
    for (const [i, w] of words.entries()) {
      const dy = (rand() - 0.5) * size * 0.12
      const rot = ((rand() - 0.5) * 4).toFixed(2)
      const s = (size * (0.93 + rand() * 0.14)).toFixed(1)
      const dx = i === 0 ? 0 : size * (0.15 + rand() * 0.25)
      spans.push(`<tspan dx="${dx.toFixed(1)}" dy="${(dy - offset).toFixed(1)}" rotate="${rot}" font-size="${s}">${escapeXml(w)}${i < words.length - 1 ? " " : ""}</tspan>`)
      offset = dy
    }
    texts.push(`<text x="${(220 + rand() * 60).toFixed(1)}" y="${y.toFixed(1)}" font-family="${family}" font-size="${size}">${spans.join("")}</text>`)
    y += size * (1.7 + rand() * 0.3)
  }
  const height = Math.max(1200, Math.ceil(y + 160))
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="100%" height="100%" fill="#fff"/><g transform="skewX(${slant.toFixed(1)}) translate(${(-Math.tan(slant * Math.PI / 180) * height / 2).toFixed(1)} 0)" fill="#1a1a40">${texts.join("")}</g></svg>`
  return { svg, truth: out.join("\n"), slant }
}

