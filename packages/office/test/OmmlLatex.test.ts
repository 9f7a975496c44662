/** Office Math to LaTeX: the constructs Word writes, checked on hand-written OMML. */
import { describe, expect, it } from "vitest"
import { ommlToLatex } from "../src/OmmlLatex.ts"
import { parseXml } from "../src/Xml.ts"

const m = (body: string) => ommlToLatex(parseXml(`<m:oMath xmlns:m="http://schemas.openxmlformats.org/officeDocument/2006/math">${body}</m:oMath>`))
const r = (t: string) => `<m:r><m:t>${t}</m:t></m:r>`

describe("ommlToLatex", () => {
  it("writes scripts, fractions, radicals and symbols", () => {
    expect(m(`${r("A=π")}<m:sSup><m:e>${r("r")}</m:e><m:sup>${r("2")}</m:sup></m:sSup>`)).toBe("A=\\pi r^{2}")
    expect(m(`<m:f><m:num>${r("a")}</m:num><m:den>${r("b")}</m:den></m:f>`)).toBe("\\frac{a}{b}")
    expect(m(`<m:sSup><m:e><m:f><m:num>${r("a")}</m:num><m:den>${r("b")}</m:den></m:f></m:e><m:sup>${r("2")}</m:sup></m:sSup>`)).toBe("{\\frac{a}{b}}^{2}")
    expect(m(`<m:rad><m:radPr><m:degHide m:val="1"/></m:radPr><m:deg/><m:e>${r("x")}</m:e></m:rad>`)).toBe("\\sqrt{x}")
    expect(m(`<m:rad><m:deg>${r("3")}</m:deg><m:e>${r("x")}</m:e></m:rad>`)).toBe("\\sqrt[3]{x}")
    expect(m(`<m:sSub><m:e>${r("a")}</m:e><m:sub>${r("n")}</m:sub></m:sSub>`)).toBe("a_{n}")
  })

  it("writes delimiters, n-ary operators, functions, accents and matrices", () => {
    expect(m(`<m:d><m:e>${r("x")}</m:e></m:d>`)).toBe("\\left(x\\right)")
    expect(m(`<m:d><m:dPr><m:begChr m:val="["/><m:endChr m:val="]"/></m:dPr><m:e>${r("x")}</m:e></m:d>`)).toBe("\\left[x\\right]")
    expect(m(`<m:nary><m:naryPr><m:chr m:val="∑"/></m:naryPr><m:sub>${r("n=1")}</m:sub><m:sup>${r("∞")}</m:sup><m:e>${r("a")}</m:e></m:nary>`)).toBe("\\sum_{n=1}^{\\infty }a")
    expect(m(`<m:func><m:fName>${r("sin")}</m:fName><m:e>${r("x")}</m:e></m:func>`)).toBe("\\sin{x}")
    expect(m(`<m:acc><m:accPr><m:chr m:val="̂"/></m:accPr><m:e>${r("x")}</m:e></m:acc>`)).toBe("\\hat{x}")
    expect(m(`<m:m><m:mr><m:e>${r("1")}</m:e><m:e>${r("0")}</m:e></m:mr><m:mr><m:e>${r("0")}</m:e><m:e>${r("1")}</m:e></m:mr></m:m>`)).toBe("\\begin{matrix}1 & 0 \\\\ 0 & 1\\end{matrix}")
  })

  it("escapes LaTeX specials in text and ignores property elements", () => {
    expect(m(`<m:r><m:rPr><m:sty m:val="p"/></m:rPr><m:t>50% &amp; #1</m:t></m:r>`)).toBe("50\\% \\& \\#1")
  })
})
