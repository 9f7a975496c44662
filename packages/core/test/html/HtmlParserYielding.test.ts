/**
 * `parseHtmlYielding` builds the same tree as `parseHtml`, and on markup that makes the parser
 * slow (tens of thousands of nested elements) it gives the event loop a turn at least every few
 * tens of milliseconds instead of holding the thread for seconds.
 */
import { describe, expect, it } from "vitest"
import { Effect } from "effect"
import fc from "fast-check"
import { parseHtml, parseHtmlYielding } from "../../src/html/HtmlParser.ts"
import { watchEventLoop } from "../helpers/EventLoopGap.ts"

describe("parseHtmlYielding", () => {
  it("builds the same tree as parseHtml", async () => {
    const page = `<!doctype html><html><head><title>T</title></head><body>${"<p>Para <b>bold</b> &amp; <a href='/x'>link</a></p>".repeat(3000)}<ul><li>a<li>b</ul></body></html>`
    expect(await Effect.runPromise(parseHtmlYielding(page))).toEqual(parseHtml(page))
    fc.assert(fc.property(fc.array(fc.constantFrom("<div>", "</div>", "<p>", "text ", "<li>", "</ul>", "<br>", "&lt;", "<svg><path/></svg>"), { maxLength: 300 }), (parts) => {
      const html = parts.join("")
      expect(Effect.runSync(parseHtmlYielding(html))).toEqual(parseHtml(html))
    }))
  })

  it("keeps the event loop turning on 60,000 nested elements", async () => {
    const html = "<div>".repeat(60_000) + "deep" + "</div>".repeat(60_000)
    const loop = watchEventLoop(5)
    const root = await Effect.runPromise(parseHtmlYielding(html))
    const worst = loop.stop()
    expect(JSON.stringify(root)).toContain("deep")
    expect(worst).toBeLessThan(150)
  })
})
