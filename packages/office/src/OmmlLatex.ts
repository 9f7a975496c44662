/**
 * Office Math (OMML, `m:oMath`) to LaTeX, for equations in Word documents: fractions, scripts,
 * radicals, delimiters, n-ary operators, functions, accents, bars, limits, matrices and equation
 * arrays, with common Unicode math symbols mapped to their LaTeX commands. What it does not
 * know it writes as text, so no content is lost.
 */
import { child, childrenNamed, textOf, type XmlElement } from "./Xml.ts"

const symbols: Record<string, string> = {
  "α": "\\alpha", "β": "\\beta", "γ": "\\gamma", "δ": "\\delta", "ε": "\\epsilon", "ζ": "\\zeta", "η": "\\eta", "θ": "\\theta",
  "ι": "\\iota", "κ": "\\kappa", "λ": "\\lambda", "μ": "\\mu", "ν": "\\nu", "ξ": "\\xi", "π": "\\pi", "ρ": "\\rho", "σ": "\\sigma",
  "τ": "\\tau", "υ": "\\upsilon", "φ": "\\phi", "χ": "\\chi", "ψ": "\\psi", "ω": "\\omega", "Γ": "\\Gamma", "Δ": "\\Delta",
  "Θ": "\\Theta", "Λ": "\\Lambda", "Ξ": "\\Xi", "Π": "\\Pi", "Σ": "\\Sigma", "Φ": "\\Phi", "Ψ": "\\Psi", "Ω": "\\Omega",
  "∞": "\\infty", "×": "\\times", "÷": "\\div", "±": "\\pm", "∓": "\\mp", "≤": "\\leq", "≥": "\\geq", "≠": "\\neq", "≈": "\\approx",
  "≡": "\\equiv", "∝": "\\propto", "∈": "\\in", "∉": "\\notin", "⊂": "\\subset", "⊆": "\\subseteq", "∪": "\\cup", "∩": "\\cap",
  "∂": "\\partial", "∇": "\\nabla", "→": "\\rightarrow", "←": "\\leftarrow", "⇒": "\\Rightarrow", "⇔": "\\Leftrightarrow",
  "∀": "\\forall", "∃": "\\exists", "⋅": "\\cdot", "·": "\\cdot", "…": "\\ldots", "⋯": "\\cdots", "∘": "\\circ", "′": "'"
}

const nary: Record<string, string> = { "∑": "\\sum", "∏": "\\prod", "∐": "\\coprod", "∫": "\\int", "∬": "\\iint", "∭": "\\iiint", "∮": "\\oint", "⋃": "\\bigcup", "⋂": "\\bigcap" }
const accents: Record<string, string> = { "̂": "\\hat", "̃": "\\tilde", "̄": "\\bar", "̇": "\\dot", "̈": "\\ddot", "⃗": "\\vec", "́": "\\acute", "̀": "\\grave", "̆": "\\breve" }
const functions = new Set(["sin", "cos", "tan", "cot", "sec", "csc", "log", "ln", "exp", "lim", "max", "min", "sinh", "cosh", "tanh", "det", "sup", "inf", "arg"])

const escapeText = (text: string): string =>
  Array.from(text)
    .map((c) => symbols[c] !== undefined ? `${symbols[c]} ` : "{}#$%&_".includes(c) ? `\\${c}` : c)
    .join("")

const attr = (el: XmlElement | undefined, name: string): string | undefined => el?.attrs[name] ?? el?.attrs.val

const arg = (el: XmlElement | undefined): string => (el === undefined ? "" : children(el))

/** LaTeX of every child of an OMML element, concatenated. */
const children = (el: XmlElement): string => {
  let out = ""
  for (const c of el.children) if (typeof c !== "string") out += node(c)
  return out
}

const delimiter = (chr: string | undefined, fallback: string): string => {
  const c = chr ?? fallback
  if (c === "") return "."
  if (c === "{" || c === "}") return `\\${c}`
  if (c === "|" || c === "(" || c === ")" || c === "[" || c === "]") return c
  if (c === "‖") return "\\|"
  if (c === "⟨" || c === "〈") return "\\langle"
  if (c === "⟩" || c === "〉") return "\\rangle"
  if (c === "⌈") return "\\lceil"
  if (c === "⌉") return "\\rceil"
  if (c === "⌊") return "\\lfloor"
  if (c === "⌋") return "\\rfloor"
  return c
}

/** The base of a script: braced unless it is one symbol, so `x^{2}` stays plain and `{\frac{a}{b}}^{2}` is unambiguous. */
const base = (el: XmlElement): string => {
  const b = arg(child(el, "e")).trim()
  return /^(?:[A-Za-z0-9]|\\[A-Za-z]+)$/.test(b) ? b : `{${b}}`
}

const node = (el: XmlElement): string => {
  switch (el.name) {
    case "r": {
      const text = textOf(child(el, "t"))
      if (functions.has(text.trim())) return `\\${text.trim()}`
      return escapeText(text)
    }
    case "f": {
      const type = attr(child(child(el, "fPr"), "type"), "val")
      const num = arg(child(el, "num"))
      const den = arg(child(el, "den"))
      if (type === "noBar") return `\\genfrac{}{}{0pt}{}{${num}}{${den}}`
      if (type === "lin") return `${num}/${den}`
      return `\\frac{${num}}{${den}}`
    }
    case "sSup":
      return `${base(el)}^{${arg(child(el, "sup"))}}`
    case "sSub":
      return `${base(el)}_{${arg(child(el, "sub"))}}`
    case "sSubSup":
      return `${base(el)}_{${arg(child(el, "sub"))}}^{${arg(child(el, "sup"))}}`
    case "sPre":
      return `{}_{${arg(child(el, "sub"))}}^{${arg(child(el, "sup"))}}${arg(child(el, "e"))}`
    case "rad": {
      const hide = attr(child(child(el, "radPr"), "degHide"), "val")
      const degree = arg(child(el, "deg"))
      return hide === "1" || hide === "on" || degree.length === 0 ? `\\sqrt{${arg(child(el, "e"))}}` : `\\sqrt[${degree}]{${arg(child(el, "e"))}}`
    }
    case "d": {
      const pr = child(el, "dPr")
      const open = delimiter(attr(child(pr, "begChr"), "val"), "(")
      const close = delimiter(attr(child(pr, "endChr"), "val"), ")")
      const sep = attr(child(pr, "sepChr"), "val") ?? "|"
      return `\\left${open}${childrenNamed(el, "e").map(arg).join(sep === "|" ? "|" : sep)}\\right${close}`
    }
    case "nary": {
      const pr = child(el, "naryPr")
      const chr = attr(child(pr, "chr"), "val") ?? "∫"
      const op = nary[chr] ?? escapeText(chr)
      const sub = arg(child(el, "sub"))
      const sup = arg(child(el, "sup"))
      return `${op}${sub.length > 0 ? `_{${sub}}` : ""}${sup.length > 0 ? `^{${sup}}` : ""}${arg(child(el, "e"))}`
    }
    case "func":
      return `${arg(child(el, "fName"))}{${arg(child(el, "e"))}}`
    case "acc": {
      const chr = attr(child(child(el, "accPr"), "chr"), "val") ?? "̂"
      return `${accents[chr] ?? "\\hat"}{${arg(child(el, "e"))}}`
    }
    case "bar": {
      const pos = attr(child(child(el, "barPr"), "pos"), "val")
      return `${pos === "bot" ? "\\underline" : "\\overline"}{${arg(child(el, "e"))}}`
    }
    case "limLow":
      return `${arg(child(el, "e"))}_{${arg(child(el, "lim"))}}`
    case "limUpp":
      return `${arg(child(el, "e"))}^{${arg(child(el, "lim"))}}`
    case "groupChr":
      return `\\underbrace{${arg(child(el, "e"))}}`
    case "eqArr": {
      const rows = childrenNamed(el, "e").map(arg)
      return rows.length === 1 ? rows[0] : `\\begin{array}{l}${rows.join(" \\\\ ")}\\end{array}`
    }
    case "m":
      return `\\begin{matrix}${childrenNamed(el, "mr").map((row) => childrenNamed(row, "e").map(arg).join(" & ")).join(" \\\\ ")}\\end{matrix}`
    case "box":
    case "borderBox":
    case "phant":
    case "e":
    case "oMath":
    case "num":
    case "den":
    case "sub":
    case "sup":
    case "deg":
    case "lim":
    case "fName":
      return arg(el)
    case "oMathPara":
      return childrenNamed(el, "oMath").map(node).join(" \\\\ ")
    default:
      // Property elements (…Pr, ctrlPr) carry no content.
      return el.name.endsWith("Pr") ? "" : arg(el)
  }
}

/** LaTeX of an `m:oMath` or `m:oMathPara` element (without `$` delimiters). */
export const ommlToLatex = (el: XmlElement): string => node(el).replace(/\s+/g, " ").trim()
