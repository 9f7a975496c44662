/** When a fetched page goes to the browser: empty shells, empty framework roots, noscript hints; never a page with its text. */
import { describe, expect, it } from "vitest"
import { needsJavaScript } from "../../src/fetch/NeedsJavaScript.ts"

const page = (body: string, head = "<title>T</title>") => `<!doctype html><html><head>${head}</head><body>${body}</body></html>`
const prose = (chars: number) => "Tide pools form where the sea retreats twice a day. ".repeat(Math.ceil(chars / 52))
const bundle = `<script src="/static/js/main.3f9a.js"></script>`

describe("needsJavaScript", () => {
  it("an empty body under scripts is an empty shell", () => {
    expect(needsJavaScript(page(`<div class="spinner"></div>${bundle}`))).toBe("empty-shell")
    expect(needsJavaScript(page(`<p>Loading…</p><script>document.body.innerHTML = "<p>hi</p>"</script>`))).toBe("empty-shell")
  })

  it("menus, a sidebar and a footer around nothing are an empty shell, however long they are", () => {
    const menus = `<header><nav>${"<a href=\"/x\">Products and solutions overview</a> ".repeat(60)}</nav></header>`
    const footer = `<footer>${"Terms, privacy, cookies, sitemap. ".repeat(20)}</footer><aside>${"Subscribe to the newsletter. ".repeat(10)}</aside>`
    expect(needsJavaScript(page(`${menus}<div class="article-body"></div>${footer}${bundle}`))).toBe("empty-shell")
    // A product page: its name and price served, its description written by script.
    expect(needsJavaScript(page(`${menus}<div class="product"><h1>Kettle</h1><p>49 euros</p><div id="description"></div></div>${footer}${bundle}`))).toBe("empty-shell")
  })

  it("an article's own header and footer are its text, not navigation", () => {
    const article = `<article><header><h1>Tide pools</h1><p>${prose(400)}</p></header><footer>${prose(100)}</footer></article>`
    expect(needsJavaScript(page(`<nav>${"Home About ".repeat(30)}</nav>${article}${bundle}`))).toBeUndefined()
    // role="navigation" counts as navigation too; the page's text next to it is the content.
    expect(needsJavaScript(page(`<div role="navigation">${"Home About ".repeat(60)}</div><div>${prose(600)}</div>${bundle}`))).toBeUndefined()
  })

  it("an empty framework root on a page with a little server text is a framework root", () => {
    const chrome = `<header><nav>${"Home About Pricing Docs Blog Careers Contact ".repeat(8)}</nav></header>`
    for (const root of [`<div id="root"></div>`, `<div id="__next"></div>`, `<div id="app"></div>`, `<div ng-app="shop"></div>`, `<app-root></app-root>`]) {
      expect(needsJavaScript(page(`${chrome}${root}${bundle}`)), root).toBe("framework-root")
    }
  })

  it("a noscript asking for JavaScript on a page with little text is a hint", () => {
    const chrome = `<header>${"Acme Store - Free shipping on orders over 50 - Sign in - Cart ".repeat(6)}</header>`
    expect(needsJavaScript(page(`${chrome}<noscript>You need to enable JavaScript to run this app.</noscript><div class="content"></div>${bundle}`))).toBe("noscript-hint")
  })

  it("a normal article with scripts stays with the fetch engine", () => {
    const article = `<article><h1>Tide pools</h1><p>${prose(2500)}</p></article>`
    expect(needsJavaScript(page(`${article}${bundle}<script>window.dataLayer = []</script>`))).toBeUndefined()
  })

  it("a server-rendered app fills its root and stays with the fetch engine", () => {
    expect(needsJavaScript(page(`<div id="__next"><main><p>${prose(800)}</p></main></div>${bundle}`))).toBeUndefined()
  })

  it("an article whose comment widget asks for JavaScript stays with the fetch engine", () => {
    const body = `<article><p>${prose(2000)}</p></article><div id="disqus_thread"></div>` +
      `<noscript>Please enable JavaScript to view the comments.</noscript>${bundle}`
    expect(needsJavaScript(page(body))).toBeUndefined()
  })

  it("a page with no scripts stays as it is, however empty", () => {
    expect(needsJavaScript(page(""))).toBeUndefined()
    expect(needsJavaScript(page(`<div id="root"></div>`))).toBeUndefined()
  })

  it("text in scripts, styles and templates is not visible text", () => {
    const hiddenText = `<script>var s = "${"x".repeat(5000)}"</script><style>body{${"color:red;".repeat(300)}}</style><template><p>${prose(600)}</p></template>`
    expect(needsJavaScript(page(hiddenText))).toBe("empty-shell")
  })
})
