/**
 * Double-encoded UTF-8 ("letâ€™s"): which pages are repaired, that the repair gives the original
 * text back for any text garbled through windows-1252, and that real Latin text is left alone.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { processHtml } from "../../src/html/HtmlPipeline.ts"
import { hasMojibake, repairMojibake } from "../../src/html/Mojibake.ts"

/** What an upstream system does: UTF-8 bytes read as windows-1252 (WHATWG's decoder, as browsers). */
const garble = (text: string): string => new TextDecoder("windows-1252").decode(new TextEncoder().encode(text))

describe("mojibake repair", () => {
  it("reads double-encoded punctuation and letters as they were written", () => {
    expect(repairMojibake(garble("Let’s meet at the café – “soon”…"))).toBe("Let’s meet at the café – “soon”…")
    // the ISO-8859-1 flavour keeps C1 controls where windows-1252 has punctuation
    expect(repairMojibake("let\u00e2\u0080\u0099s")).toBe("let’s")
    expect(repairMojibake(garble("Grüße aus Köln, 東京, 🙂"))).toBe("Grüße aus Köln, 東京, 🙂")
  })

  it("asks for strong evidence before touching a page", () => {
    expect(hasMojibake(garble("it’s"))).toBe(true) // a windows-1252 punctuation mark inside the run
    expect(hasMojibake("caf\u00c3\u00a9")).toBe(false) // one weak run could be real text
    expect(hasMojibake(garble("café, résumé, naïve"))).toBe(true) // several runs
    for (const text of ["São Paulo", "crème brûlée", "Ångström", "naïve façade", "Ærøskøbing", "¿Qué? ¡Sí!", "Â is a letter", "10 °C ± 2"]) {
      expect(hasMojibake(text)).toBe(false)
      expect(repairMojibake(text)).toBe(text)
    }
  })

  it("undoes the garbling of any text", () => {
    fc.assert(fc.property(fc.string({ unit: "grapheme" }), (text) => {
      expect(repairMojibake(garble(text))).toBe(text)
    }), { numRuns: 300 })
  })

  it("repairs the markdown and metadata of a garbled page, not pages without it", () => {
    const page = `<html><head><title>${garble("Let’s talk")}</title></head><body><article><h1>${garble("Café notes")}</h1>
      <p>${garble("We’ve tried every café in town – here’s what we found, and why it’s worth a visit.")}</p></article></body></html>`
    const result = processHtml(page, { url: "https://example.com/", onlyMainContent: true, removeBase64Images: true, formats: { markdown: true, html: false, links: false } })
    expect(result.markdown).toContain("We’ve tried every café in town – here’s what we found")
    expect(result.metadata["title"]).toBe("Let’s talk")
    const clean = "<html><body><p>São Paulo, crème brûlée and Â as a letter.</p></body></html>"
    expect(processHtml(clean, { url: "https://example.com/", onlyMainContent: false, removeBase64Images: true, formats: { markdown: true, html: false, links: false } }).markdown)
      .toContain("São Paulo, crème brûlée and Â as a letter.")
  })
})
