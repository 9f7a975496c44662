/**
 * The script the engine runs in a page for the `branding` format: it samples computed styles
 * and logo candidates into core's `BrandingSamples` (plain JSON; core decides the roles). A
 * string, not a function, so that no bundler's helpers end up in what the page evaluates. It runs
 * in an isolated world (`sampleBranding`): the page's DOM, but not its globals, so a page that
 * replaced `getComputedStyle` or a prototype cannot feed it false styles or stop it. It
 * waits for the page's fonts (at most 1 s), turns every CSS colour into sRGB through a 1-pixel
 * canvas (so `oklch()` and `color-mix()` read like `rgb()`), and caps each kind of element so a
 * huge page costs no more than a small one.
 */

import type { Page } from "playwright-core"

/** The most elements sampled per kind. */
export const BRANDING_LIMITS = { text: 150, link: 60, button: 30, input: 10, code: 5, status: 20, surface: 60, logo: 30, variables: 300 } as const

export const brandingScript = `(async () => {
  const limits = ${JSON.stringify(BRANDING_LIMITS)}
  try { await Promise.race([document.fonts.ready, new Promise((r) => setTimeout(r, 1000))]) } catch (e) {}
  const canvas = document.createElement("canvas")
  canvas.width = 1; canvas.height = 1
  const ctx = canvas.getContext("2d", { willReadFrequently: true })
  const colors = new Map()
  const rgba = (value) => {
    if (!value || value === "none" || value === "transparent") return value === "transparent" ? [0, 0, 0, 0] : null
    if (colors.has(value)) return colors.get(value)
    let out = null
    const m = /^rgba?\\(\\s*([\\d.]+)[,\\s]+([\\d.]+)[,\\s]+([\\d.]+)(?:\\s*[,/]\\s*([\\d.]+)(%?))?\\s*\\)$/.exec(value)
    if (m) {
      const a = m[4] === undefined ? 1 : m[5] === "%" ? parseFloat(m[4]) / 100 : parseFloat(m[4])
      out = [+m[1], +m[2], +m[3], a]
    } else if (ctx) {
      ctx.fillStyle = "#010203"; ctx.fillStyle = value
      if (ctx.fillStyle !== "#010203" || value === "#010203") {
        ctx.clearRect(0, 0, 1, 1); ctx.fillRect(0, 0, 1, 1)
        const d = ctx.getImageData(0, 0, 1, 1).data
        out = [d[0], d[1], d[2], d[3] / 255]
      }
    }
    colors.set(value, out)
    return out
  }
  const opaque = (c) => c !== null && c[3] >= 0.5
  const white = [255, 255, 255, 1]
  const bgOwn = (el) => rgba(getComputedStyle(el).backgroundColor)
  const pageBackground = () => {
    for (const el of [document.documentElement, document.body]) {
      if (!el) continue
      const c = bgOwn(el)
      if (opaque(c)) return c
    }
    // No painted root: the surface that covers most of the page, if it covers half of it.
    const total = Math.max(1, document.documentElement.scrollWidth * document.documentElement.scrollHeight)
    let best = null, bestArea = 0
    // Size first: a rect is cheap once laid out, a computed style is not (3,000 paragraphs cost 200 ms the other way round).
    for (const el of document.querySelectorAll("body > *, body > * > *")) {
      const r = el.getBoundingClientRect()
      const area = r.width * r.height
      if (area < total / 2 || area <= bestArea) continue
      const c = bgOwn(el)
      if (opaque(c)) { best = c; bestArea = area }
    }
    return best !== null && bestArea >= total / 2 ? best : white
  }
  const background = pageBackground()
  const behind = (el) => {
    for (let e = el.parentElement; e; e = e.parentElement) {
      const c = bgOwn(e)
      if (opaque(c)) return c
    }
    return background
  }
  const ownText = (el) => {
    let n = 0
    for (const c of el.childNodes) if (c.nodeType === 3) n += c.textContent.trim().length
    return n
  }
  const shown = (el) => {
    const r = el.getBoundingClientRect()
    if (r.width < 1 || r.height < 1) return null
    const s = getComputedStyle(el)
    if (s.visibility === "hidden" || s.display === "none" || parseFloat(s.opacity) === 0) return null
    return { r, s }
  }
  const hintOf = (el) => ((el.getAttribute("class") || "") + " " + (el.id || "")).toLowerCase().slice(0, 200)
  const sides = (s, what) => ["Top", "Right", "Bottom", "Left"].map((side) => parseFloat(s[what + side]) || 0)
  const header = "header, nav, [role=banner], [class*=header i], [class*=navbar i]"
  const sample = (el, kind, seen) => {
    const v = shown(el)
    if (v === null) return null
    const { r, s } = v
    return {
      kind, tag: el.tagName.toLowerCase(), hint: hintOf(el),
      text: kind === "link" || kind === "button" || kind === "input" || kind === "status" ? ((el.innerText || el.value || "").trim().length) : ownText(el),
      color: rgba(s.color), background: rgba(s.backgroundColor), behind: behind(el),
      borderColor: rgba(s.borderTopColor), borderWidth: parseFloat(s.borderTopWidth) || 0,
      borderRadius: s.borderTopLeftRadius, fontFamily: s.fontFamily, fontSize: parseFloat(s.fontSize) || 16,
      fontWeight: parseInt(s.fontWeight, 10) || 400, lineHeight: s.lineHeight === "normal" ? null : (parseFloat(s.lineHeight) || null),
      margin: sides(s, "margin"), padding: sides(s, "padding"),
      area: Math.round(r.width * r.height), inHeader: el.closest(header) !== null
    }
  }
  const elements = []
  const taken = new Set()
  const collect = (selector, kind, limit, keep) => {
    let n = 0
    for (const el of document.querySelectorAll(selector)) {
      if (n >= limit) break
      if (taken.has(el) || (keep && !keep(el))) continue
      const s = sample(el, kind)
      if (s === null) continue
      taken.add(el); elements.push(s); n++
    }
  }
  if (document.body) { const b = sample(document.body, "body"); if (b) elements.push(b) }
  for (const h of ["h1", "h2", "h3"]) collect(h, h, 3)
  const buttons = "button, input[type=submit], input[type=button], [role=button], a[class*=btn i], a[class*=button i], a[class*=cta i]"
  collect(buttons, "button", limits.button)
  collect("input:not([type=hidden]):not([type=submit]):not([type=button]):not([type=checkbox]):not([type=radio]), textarea, select", "input", limits.input)
  collect("code, pre, kbd, samp", "code", limits.code)
  collect("[class*=success i], [class*=error i], [class*=danger i], [class*=warning i], [class*=alert i], [role=alert]", "status", limits.status)
  // (An SVG <a> has no innerText.)
  collect("a[href]", "link", limits.link, (el) => (el.innerText || "").trim() !== "")
  collect("p, li, td, dd, blockquote, figcaption, small, span, label, time, div", "text", limits.text, (el) => ownText(el) > 0)
  collect("header, footer, nav, section, aside, main, article, div", "surface", limits.surface, (el) => opaque(bgOwn(el)))

  // Colours the root names in custom properties, resolved by the browser (var() chains included).
  const variables = []
  const probe = document.createElement("span")
  probe.style.display = "none"
  const holder = document.createElement("span")
  holder.style.color = "rgb(1, 2, 3)"
  holder.appendChild(probe)
  ;(document.body || document.documentElement).appendChild(holder)
  // Only names that say a role are resolved (core reads no others): a theme that declares hundreds
  // of palette steps (--color-red-500) costs nothing and cannot crowd out --brand.
  const semantic = /primary|brand|secondary|accent|highlight|tertiary|success|positive|valid|warn|caution|error|danger|destructive|negative|critical/i
  const names = new Set()
  const visit = (rules) => {
    for (const rule of rules) {
      if (names.size >= limits.variables) return
      if (rule.cssRules && !rule.selectorText) { visit(rule.cssRules); continue }
      if (!rule.style || !/(^|,)\\s*(:root|html|body)\\b/.test(rule.selectorText || "")) continue
      for (const name of rule.style) if (name.startsWith("--") && semantic.test(name)) names.add(name)
    }
  }
  for (const sheet of document.styleSheets) {
    try { visit(sheet.cssRules) } catch (e) { /* another origin's sheet */ }
  }
  for (const name of names) {
    probe.style.color = "var(" + name + ")"
    const value = getComputedStyle(probe).color
    const c = rgba(value)
    if (c !== null && value !== "rgb(1, 2, 3)" && c[3] > 0) variables.push({ name, color: c })
  }
  holder.remove()

  const abs = (u) => { try { return new URL(u, document.baseURI).href } catch (e) { return null } }
  const meta = (...keys) => {
    for (const k of keys) {
      const el = document.querySelector('meta[property="' + k + '"], meta[name="' + k + '"]')
      if (el && el.content) return el.content
    }
    return null
  }
  const icon = document.querySelector('link[rel~="icon" i]') || document.querySelector('link[rel="apple-touch-icon" i]')
  const og = meta("og:image", "og:image:url", "twitter:image")
  const isHome = (a) => {
    if (!a) return false
    try {
      const u = new URL(a.getAttribute("href") || "", document.baseURI)
      return u.origin === location.origin && /^\\/(index\\.[a-z]+|home|[a-z]{2}(-[a-z]{2})?\\/?)?$/i.test(u.pathname)
    } catch (e) { return false }
  }
  const logos = []
  const logoSelector = "img, svg, [class*=logo i], [id*=logo i]"
  for (const el of document.querySelectorAll(logoSelector)) {
    if (logos.length >= limits.logo) break
    if (el.closest("svg") !== el && el.closest("svg") !== null) continue
    const v = shown(el)
    if (v === null) continue
    const { r, s } = v
    const top = r.top + window.scrollY
    const inHeader = el.closest(header) !== null
    if (!inHeader && top > 600) continue
    const tag = el.tagName.toLowerCase()
    let kind = null, src = null, alt = ""
    if (tag === "img") {
      kind = "img"; src = abs(el.currentSrc || el.src); alt = el.alt || el.title || ""
      // A lazy-loading placeholder (a 1-pixel GIF, an empty SVG) stands in for the file named in data-src.
      if (src && src.startsWith("data:")) {
        const lazy = el.getAttribute("data-src") || el.getAttribute("data-lazy-src") || el.getAttribute("data-original") || (el.getAttribute("data-srcset") || "").split(/[\\s,]/)[0]
        src = lazy ? abs(lazy) : src.startsWith("data:image/svg+xml") && !/empty/.test(src.slice(0, 80)) ? src : null
      }
    }
    else if (tag === "svg") {
      const markup = new XMLSerializer().serializeToString(el)
      if (markup.length > 20000) continue
      kind = "svg"; src = "data:image/svg+xml;utf8," + encodeURIComponent(markup)
      alt = el.getAttribute("aria-label") || (el.querySelector("title") ? el.querySelector("title").textContent : "") || ""
    } else {
      const m = /url\\(["']?([^"')]+)["']?\\)/.exec(s.backgroundImage)
      if (!m) continue
      kind = "background"; src = abs(m[1]); alt = el.getAttribute("aria-label") || el.title || ""
    }
    if (!src) continue
    const link = el.closest("a")
    logos.push({
      kind, src, alt: alt.trim().slice(0, 200),
      hint: (hintOf(el) + " " + (tag === "img" ? (el.getAttribute("src") || "") : "") + " " + (link ? hintOf(link) + " " + (link.getAttribute("aria-label") || "") : "") + " " + (el.parentElement ? hintOf(el.parentElement) : "")).toLowerCase().slice(0, 400),
      inHeader, linksHome: isHome(link), width: Math.round(r.width), height: Math.round(r.height), top: Math.round(top)
    })
  }
  return {
    url: location.href, title: document.title || "", siteName: meta("og:site_name", "application-name"),
    background, elements, variables,
    favicon: icon && icon.getAttribute("href") ? abs(icon.getAttribute("href")) : null, ogImage: og ? abs(og) : null, logos
  }
})()`

/** Runs the branding script in an isolated world of the page's main frame; its JSON result, or an error. */
export const sampleBranding = async (page: Page): Promise<unknown> => {
  const cdp = await page.context().newCDPSession(page)
  try {
    const { frameTree } = await cdp.send("Page.getFrameTree")
    const { executionContextId } = await cdp.send("Page.createIsolatedWorld", { frameId: frameTree.frame.id, worldName: "strata-branding" })
    const evaluated = await cdp.send("Runtime.evaluate", { expression: brandingScript, contextId: executionContextId, awaitPromise: true, returnByValue: true })
    if (evaluated.exceptionDetails !== undefined) {
      throw new Error(evaluated.exceptionDetails.exception?.description?.split("\n")[0] ?? evaluated.exceptionDetails.text)
    }
    return evaluated.result.value
  } finally {
    await cdp.detach().catch(() => undefined)
  }
}
