/**
 * What a math glyph is, for the LaTeX writer (MathLatex.ts): the font classes of TeX's math fonts,
 * the code table of CMEX (whose glyph names pdf.js cannot map, so its text is the raw character
 * code), and the LaTeX of the Unicode characters pdf.js gives for CMMI, CMSY, CMR and the like
 * (their glyph names, read through ToUnicode or the glyph list).
 */

/** TeX's and other math fonts by PostScript name (subset prefix already stripped). */
// Also the math of TeX's Times and Palatino setups (mathptmx's URW Symbol "StandardSymL", mathpazo's
// "PazoMath"), Euler (eurm), txfonts/pxfonts and newtx/newpx (rtxmi, ntxmi, npxsy), MnSymbol, stmaryrd.
export const MATH_FONT = /^(cmmi|cmsy|cmex|cmbsy|cmmib|msbm|msam|eufm|eusm|rsfs|esint|stix|cambriamath|cambria math|txsy|txex|pxsy|pxex|lmmathitalic|lmmathsymbols|lmmathextension|latinmodernmath|xitsmath|asanamath|texgyre\w*math|symbol|mathematicalpi|standardsyml|pazomath|eur[mb]|euex|euf[mb]|r?[tp]xmi|r?[tp]xsy|n[tp]xmi|n[tp]xsy|mnsymbol|stmary)/i

/**
 * Fonts of CMEX's layout whose glyphs have no names pdf.js can read, so that their text is the
 * character code, read with CMEX's table: CMEX itself and its clones txfonts' txex and pxfonts'
 * pxex (Latin Modern's extension font names its glyphs).
 */
export const readsByCmexCodes = (font: string): boolean => /^(?:cmex|r?[tp]xex)/i.test(font)

export const isCmex = (font: string | undefined): boolean => font !== undefined && /^(cmex|txex|pxex|lmmathextension)/i.test(font)

/** A font for text (CMR, Times...) rather than math: its letters in a formula are upright words. */
export const isMathFont = (font: string | undefined): boolean => font !== undefined && MATH_FONT.test(font)

// CMEX10 by character code (the TeXbook, Appendix F): big operators, radicals and sized delimiters.
const CMEX: Record<number, string> = {}
const put = (codes: ReadonlyArray<number>, s: string) => {
  for (const c of codes) CMEX[c] = s
}
put([0x00, 0x10, 0x12, 0x20, 0x30, 0x40, 0x42], "(")
put([0x01, 0x11, 0x13, 0x21, 0x31, 0x41, 0x43], ")")
put([0x02, 0x68, 0x14, 0x22, 0x32, 0x34, 0x36], "[")
put([0x03, 0x69, 0x15, 0x23, 0x33, 0x35, 0x37], "]")
put([0x08, 0x6e, 0x1a, 0x28, 0x38, 0x3a, 0x3c, 0x3e], "{")
put([0x09, 0x6f, 0x1b, 0x29, 0x39, 0x3b, 0x3d], "}")
put([0x0c], "|")
put([0x50, 0x58], "∑")
put([0x51, 0x59], "∏")
put([0x52, 0x5a], "∫")
put([0x48, 0x49], "∮")
put([0x53, 0x5b], "⋃")
put([0x54, 0x5c], "⋂")
put([0x70, 0x71, 0x72, 0x73, 0x74], "√")

/** How far a CMEX glyph hangs below its baseline, in font sizes (its height above is about nil); `width` in font sizes tells display from text style. */
export const cmexDepth = (ch: string, width: number): number => {
  if (ch === "∫" || ch === "∮") return width > 0.5 ? 2.2 : 1.1
  if (ch === "∑" || ch === "∏" || ch === "⋃" || ch === "⋂") return width > 1.2 ? 1.4 : 1.0
  return 1.2
}

/** A CMEX item's text as the characters it draws (`"X"` is the display ∑); unknown codes are dropped. */
export const cmexText = (raw: string): string => {
  let out = ""
  // A space is one pdf.js put in for a gap, not code 0x20 (a Bigg parenthesis).
  for (const ch of raw) out += ch === " " ? ch : CMEX[ch.codePointAt(0) ?? 0] ?? ""
  return out
}

/** Big operators: their limits go above and below in display style. */
export const BIG_OPERATORS: Record<string, string> = {
  "∑": "\\sum", "∏": "\\prod", "∫": "\\int", "∮": "\\oint", "⋃": "\\bigcup", "⋂": "\\bigcap", "∐": "\\coprod"
}

/** Words set upright in a formula that are operator names (`\sin x`). */
export const OPERATOR_NAMES = /^(?:arcsin|arccos|arctan|sinh|cosh|tanh|sin|cos|tan|cot|sec|csc|log|ln|exp|lim|liminf|limsup|max|min|sup|inf|det|dim|ker|deg|gcd|arg|Pr)$/
export const OPERATOR_WORD = /(?<![A-Za-z])(?:arcsin|arccos|arctan|sinh|cosh|tanh|sin|cos|tan|cot|sec|csc|log|ln|exp|lim|max|min|sup|inf|det|dim|ker|deg|gcd|arg)(?![A-Za-z])/g
/** Operator names whose limits go below them in display style. */
export const LIMIT_NAMES = new Set(["\\lim", "\\max", "\\min", "\\sup", "\\inf", "\\det", "\\gcd", "\\Pr"])

/** Accents as pdf.js gives them (spacing or combining): they sit over the next glyph. */
export const ACCENTS: Record<string, string> = {
  "ˆ": "\\hat", "^": "\\hat", "\u0302": "\\hat", "¯": "\\bar", "\u0304": "\\bar", "ˉ": "\\bar", "˜": "\\tilde", "~": "\\tilde", "\u0303": "\\tilde",
  "˙": "\\dot", "\u0307": "\\dot", "¨": "\\ddot", "\u0308": "\\ddot", "\u20d7": "\\vec", "ˇ": "\\check", "\u030c": "\\check",
  "˘": "\\breve", "\u0306": "\\breve", "´": "\\acute", "\u0301": "\\acute", "\u0060": "\\grave", "\u0300": "\\grave"
}

// TeX's \phi and \epsilon are the straight ϕ and lunate ϵ (CMMI's glyph names "phi", "epsilon" map there); the curly ones are \var....
const GREEK: Record<string, string> = {
  "α": "alpha", "β": "beta", "γ": "gamma", "δ": "delta", "ϵ": "epsilon", "ε": "varepsilon", "ζ": "zeta", "η": "eta", "θ": "theta",
  "ϑ": "vartheta", "ι": "iota", "κ": "kappa", "λ": "lambda", "μ": "mu", "µ": "mu", "ν": "nu", "ξ": "xi", "π": "pi", "ϖ": "varpi",
  "ρ": "rho", "ϱ": "varrho", "σ": "sigma", "ς": "varsigma", "τ": "tau", "υ": "upsilon", "ϕ": "phi", "φ": "varphi", "χ": "chi",
  "ψ": "psi", "ω": "omega", "Γ": "Gamma", "Δ": "Delta", "Θ": "Theta", "Λ": "Lambda", "Ξ": "Xi", "Π": "Pi", "Σ": "Sigma",
  "Υ": "Upsilon", "Φ": "Phi", "Ψ": "Psi", "Ω": "Omega",
  // The glyph list maps CMR's "Delta" and "Omega" to the increment and ohm signs.
  "\u2206": "Delta", "\u2126": "Omega"
}

const SYMBOLS: Record<string, string> = {
  "−": "-", "∗": "*", "·": "\\cdot", "⋅": "\\cdot", "×": "\\times", "÷": "\\div", "±": "\\pm", "∓": "\\mp", "≤": "\\leq", "≥": "\\geq",
  "≠": "\\neq", "≈": "\\approx", "≡": "\\equiv", "∼": "\\sim", "≃": "\\simeq", "≅": "\\cong", "∝": "\\propto", "→": "\\to",
  "←": "\\leftarrow", "↔": "\\leftrightarrow", "⇒": "\\Rightarrow", "⇐": "\\Leftarrow", "⇔": "\\Leftrightarrow", "↦": "\\mapsto",
  "∞": "\\infty", "∂": "\\partial", "∇": "\\nabla", "∈": "\\in", "∉": "\\notin", "∋": "\\ni", "⊂": "\\subset", "⊃": "\\supset",
  "⊆": "\\subseteq", "⊇": "\\supseteq", "∪": "\\cup", "∩": "\\cap", "∅": "\\emptyset", "∀": "\\forall", "∃": "\\exists",
  "¬": "\\neg", "∧": "\\wedge", "∨": "\\vee", "⊕": "\\oplus", "⊗": "\\otimes", "∘": "\\circ", "•": "\\bullet", "′": "'",
  "ℓ": "\\ell", "ℏ": "\\hbar", "ℜ": "\\Re", "ℑ": "\\Im", "ℵ": "\\aleph", "⟨": "\\langle", "⟩": "\\rangle", "‖": "\\|", "∣": "|",
  "⌊": "\\lfloor", "⌋": "\\rfloor", "⌈": "\\lceil", "⌉": "\\rceil", "…": "\\ldots", "⋯": "\\cdots", "{": "\\{", "}": "\\}",
  "†": "\\dagger", "‡": "\\ddagger", "〈": "\\langle", "〉": "\\rangle", "\\": "\\setminus", "√": "\\surd", "’": "'", "⋆": "\\star", "◦": "\\circ", "⊥": "\\perp",
  "∥": "\\parallel", "∖": "\\setminus", "≪": "\\ll", "≫": "\\gg", "⊤": "\\top", "∠": "\\angle", "△": "\\triangle",
  "ℝ": "\\mathbb{R}", "ℕ": "\\mathbb{N}", "ℤ": "\\mathbb{Z}", "ℚ": "\\mathbb{Q}", "ℂ": "\\mathbb{C}", "%": "\\%", "#": "\\#", "&": "\\&"
}

/** The LaTeX of one glyph's text. */
export const glyphLatex = (ch: string): string => {
  const greek = GREEK[ch]
  if (greek !== undefined) return `\\${greek}`
  return BIG_OPERATORS[ch] ?? SYMBOLS[ch] ?? ch
}

/** A negation slash drawn over the next relation (`\neq` is `\not` over `=`). */
export const isNegation = (ch: string): boolean => ch === "\u0338" || ch === "\u29f8"
