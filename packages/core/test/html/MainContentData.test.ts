/**
 * Field dumps (`dropAddressFields`), on small hand-written pages: a run of name–value pairs
 * whose values are unlinked web addresses or whose names are underscore-joined machine names
 * goes; a lone address pair, linked addresses and parameter names set as code stay.
 */
import type { Root } from "hast"
import { fromHtml } from "hast-util-from-html"
import { toText } from "hast-util-to-text"
import { describe, expect, it } from "vitest"
import { extractMainContent, readMainContentHints } from "../../src/html/MainContent.ts"
import { dropAddressFields } from "../../src/html/MainContentData.ts"

const url = "https://shop.example/item/linen-shirt"

const extract = (html: string): string => {
  const tree: Root = fromHtml(html)
  return toText(extractMainContent(tree, { url, hints: readMainContentHints(tree, url) })).replace(/\s+/g, " ")
}

const description = `<h1>Linen shirt</h1>
  <p>A loose shirt woven from Belgian flax, washed soft before it is sewn, with horn buttons and a collar that keeps its shape after many washes.</p>
  <p>Sizes run large: most people take one size down from their usual fit.</p>`

const fields = (pairs: ReadonlyArray<[string, string]>) => `<dl>${pairs.map(([n, v]) => `<dt>${n}</dt><dd>${v}</dd>`).join("")}</dl>`

describe("field dumps", () => {
  it("drops a run of pairs whose values are web addresses printed as text", () => {
    const dump = fields([
      ["Thumbnail sand:", "https://cdn.example/img/shirt/SAND_THUMB.jpg"],
      ["Thumbnail moss:", "https://cdn.example/img/shirt/MOSS_THUMB.jpg"],
      ["Thumbnail rust:", "//cdn.example/img/shirt/RUST_THUMB.jpg"]
    ])
    const text = extract(`<html><body><main>${description}${dump}</main></body></html>`)
    expect(text).toContain("Belgian flax")
    expect(text).not.toContain("SAND_THUMB")
    expect(text).not.toContain("Thumbnail moss")
  })

  it("drops a run of pairs named with machine names, whatever their values", () => {
    const dump = fields([
      ["colour_order:", "SAND,MOSS,RUST"],
      ["tab_Details:", "TRUE"],
      ["shipping_chunk-1:", "We ship within two days."]
    ])
    const text = extract(`<html><body><main>${description}${dump}</main></body></html>`)
    expect(text).toContain("Belgian flax")
    expect(text).not.toContain("colour_order")
    expect(text).not.toContain("SAND,MOSS,RUST")
  })

  it("keeps a lone address pair, linked addresses and parameter names set as code", () => {
    const lone = fields([["Website:", "https://maker.example"]])
    const linked = fields([
      ["Manual:", `<a href="https://maker.example/m.pdf">https://maker.example/m.pdf</a>`],
      ["Care card:", `<a href="https://maker.example/c.pdf">https://maker.example/c.pdf</a>`],
      ["Size chart:", `<a href="https://maker.example/s.pdf">https://maker.example/s.pdf</a>`]
    ])
    const params = fields([
      ["<code>max_width</code>", "Widest the image may be."],
      ["<code>max_height</code>", "Tallest the image may be."],
      ["<code>keep_ratio</code>", "Whether to keep the aspect ratio."]
    ])
    for (const block of [lone, linked, params]) {
      const tree: Root = fromHtml(block, { fragment: true })
      expect(dropAddressFields(tree)).toBe(tree)
    }
  })
})
