/**
 * The branding script against real Chromium: fixture pages with known styles, served on
 * 127.0.0.1, rendered with `branding: true`, and core's profile made from what the page returned.
 * One light page that names its colours in custom properties (after 400 palette steps, as themes
 * declare them), one dark page that names none (its
 * palette comes from what it paints) with an inline SVG logo and an `oklch()` colour.
 */
import { type Branding, BrowserEngine, type BrowserRequest, brandingFromSamples } from "@strata/core"
import { Layer, ManagedRuntime } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { layer } from "../src/index.ts"
import { serve, type Site } from "./Pages.ts"

// A 1x1 transparent PNG, for the images the pages show.
const png = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=", "base64")

const light = `<!doctype html><html><head><meta charset="utf-8"><title>Tools for builders | Acme</title>
<meta property="og:site_name" content="Acme"><meta property="og:image" content="/og.png"><link rel="icon" href="/favicon.png">
<style>
:root { ${Array.from({ length: 400 }, (_, i) => `--color-step-${i}: #12345${i % 10};`).join(" ")} --brand-primary: #1d4ed8; --brand-primary-foreground: #ffffff; --color-accent: #f59e0b; --success: #16a34a; --danger: #dc2626; --warning: #d97706 }
body { margin: 0; background: #ffffff; color: #111827; font-family: "Inter", Arial, sans-serif; font-size: 16px; line-height: 24px; font-weight: 400 }
header { display: flex; gap: 16px; padding: 16px 32px }
main { padding: 32px }
h1 { font-family: Georgia, serif; font-size: 40px; line-height: 48px; font-weight: 700; margin: 0 0 24px }
h2 { font-size: 32px; line-height: 40px; font-weight: 600; margin: 0 0 16px }
h3 { font-size: 24px; line-height: 32px; font-weight: 600; margin: 0 0 16px }
p { margin: 0 0 16px }
.muted { color: #6b7280 }
a { color: #2563eb }
nav a { color: #111827; text-decoration: none }
.btn { display: inline-block; padding: 8px 16px; border-radius: 8px; border: 1px solid transparent; font-weight: 500; text-decoration: none }
.btn-primary { background: #1d4ed8; color: #ffffff }
.btn-secondary { background: transparent; color: #1d4ed8; border-color: #1d4ed8 }
input { padding: 8px 16px; border: 1px solid #d1d5db; border-radius: 6px; background: #f9fafb; color: #111827 }
code { font-family: "Fira Code", monospace }
</style></head><body>
<header><a href="/" class="home"><img src="/acme-mark.png" alt="Acme" width="120" height="40"></a>
<nav><a href="/about">About</a><a href="/pricing">Pricing</a></nav>
<a href="/search"><img src="/search.png" alt="Search" width="20" height="20"></a></header>
<main><h1>Tools for builders</h1>
<p>Acme makes hand tools and power tools for people who build things, and has since 1952. Read the <a href="/docs">documentation</a> or the <a href="/guides">guides</a>.</p>
<p class="muted">Prices include tax. Delivery takes three to five working days.</p>
<h2>Start a project</h2><p>Every project starts with a plan and the right tools for it; our catalogue lists them all.</p>
<h3>Get in touch</h3>
<button class="btn btn-primary">Start free</button> <a class="btn btn-secondary" href="/demo">Book a demo</a>
<p><input placeholder="Email address"></p>
<p>Install the helper with <code>npm install acme</code> and run it.</p>
</main></body></html>`

const dark = `<!doctype html><html><head><meta charset="utf-8"><title>Nightjar</title>
<style>
html, body { margin: 0; background: #0b1020; color: #e5e7eb; font-family: system-ui, sans-serif; font-size: 18px; line-height: 1.6 }
header { padding: 20px 40px } main { padding: 40px }
h1 { font-size: 56px; line-height: 1.1; margin: 0 0 20px; color: #ffffff }
h2 { color: oklch(0.75 0.15 150); font-size: 30px; margin: 0 0 20px }
p { margin: 0 0 20px }
a { color: #22d3ee }
.cta { display: inline-block; background: #7c3aed; color: #ffffff; padding: 10px 20px; border-radius: 999px; border: 0 }
.ghost { display: inline-block; background: transparent; color: #e5e7eb; padding: 10px 20px; border-radius: 999px; border: 2px solid #e5e7eb }
.alert-error { color: #f87171; padding: 10px; border: 1px solid #f87171 }
</style></head><body>
<header><a href="/"><svg class="site-logo" width="140" height="32" viewBox="0 0 140 32"><title>Nightjar</title><rect width="32" height="32" fill="#7c3aed"/></svg></a></header>
<main><h1>Night-time monitoring</h1>
<p>Nightjar watches your services while you sleep and <a href="/docs">tells you</a> what broke and why, in plain words.</p>
<h2>Plans</h2><p>Every plan includes unlimited checks and a status page for your customers.</p>
<button class="cta">Try Nightjar</button> <button class="ghost">Talk to us</button>
<div class="alert-error">Your last check failed.</div>
</main></body></html>`

let site: Site
let runtime: ManagedRuntime.ManagedRuntime<BrowserEngine, never>

const base: Omit<BrowserRequest, "url"> = { skipTlsVerification: false, mobile: false, waitFor: 0, actions: [], branding: true }

const brandingOf = async (path: string): Promise<Branding> => {
  const page = await runtime.runPromise(BrowserEngine.use((engine) => engine.render({ ...base, url: `${site.url}${path}` }, Date.now() + 45_000)))
  if (page.branding === undefined || "error" in page.branding) throw new Error(`no samples: ${JSON.stringify(page.branding)}`)
  const profile = brandingFromSamples(page.branding.samples)
  if (profile === undefined) throw new Error("the samples did not decode")
  return profile
}

beforeAll(async () => {
  const image = (_q: unknown, r: import("node:http").ServerResponse) => void r.writeHead(200, { "content-type": "image/png" }).end(png)
  // The light page with scripts that lie about styles and break the canvas: the isolated world never sees them.
  const tampered = light.replace("</head>", `<script>
    window.getComputedStyle = () => ({ color: "rgb(255, 0, 0)", backgroundColor: "rgb(255, 0, 0)", fontFamily: "Comic Sans MS" })
    CanvasRenderingContext2D.prototype.getImageData = () => { while (true) {} }
    Element.prototype.getBoundingClientRect = () => { throw new Error("no") }
  </script></head>`)
  const lazy = `<!doctype html><html><head><title>Lazy | Acme</title></head><body><header><a href="/">
    <img alt="Acme logo" width="120" height="40" src="data:image/gif;base64,R0lGODlhAQABAAAAACH5BAEKAAEALAAAAAABAAEAAAICTAEAOw==" data-srcset="/lazy-logo.png 1x, /lazy-logo@2x.png 2x">
    </a></header><main><h1>Lazy</h1><p>A page whose images load late.</p></main></body></html>`
  site = await serve({ "/light": light, "/tampered": tampered, "/dark": dark, "/lazy": lazy, "/acme-mark.png": image, "/search.png": image, "/og.png": image, "/favicon.png": image })
  runtime = ManagedRuntime.make(layer({ concurrency: 1, policy: { allowPrivate: false, allowedOrigins: [site.url] } }) as Layer.Layer<BrowserEngine>)
})

afterAll(async () => {
  await runtime?.dispose()
  await site?.close()
})

describe("branding", () => {
  it("reads a light page's named colours, fonts, typography, spacing, components and images", async () => {
    const b = await brandingOf("/light")
    expect(b.colorScheme).toBe("light")
    expect(b.colors).toEqual({
      primary: "#1d4ed8",
      secondary: expect.stringMatching(/^#[0-9a-f]{6}$/),
      accent: "#f59e0b",
      background: "#ffffff",
      textPrimary: "#111827",
      textSecondary: "#6b7280",
      link: "#2563eb",
      success: "#16a34a",
      warning: "#d97706",
      error: "#dc2626"
    })
    expect(b.typography?.fontFamilies).toEqual({ primary: "Inter", heading: "Georgia", code: "Fira Code" })
    expect(b.fonts?.map((f) => f.family).slice(0, 3)).toEqual(["Inter", "Georgia", "Fira Code"])
    expect(b.typography?.fontSizes).toEqual({ h1: "40px", h2: "32px", h3: "24px", body: "16px" })
    expect(b.typography?.lineHeights).toEqual({ heading: 1.2, body: 1.5 })
    expect(b.typography?.fontWeights).toMatchObject({ regular: 400, medium: 500, bold: 700 })
    expect(b.spacing?.baseUnit).toBe(8)
    expect(b.spacing?.borderRadius).toBe("8px")
    expect(b.components).toMatchObject({
      buttonPrimary: { background: "#1d4ed8", textColor: "#ffffff", borderRadius: "8px" },
      buttonSecondary: { background: "transparent", borderColor: "#1d4ed8", textColor: "#1d4ed8", borderRadius: "8px" },
      input: { background: "#f9fafb", borderColor: "#d1d5db", borderRadius: "6px", textColor: "#111827" }
    })
    expect(b.images).toEqual({ logo: `${site.url}/acme-mark.png`, favicon: `${site.url}/favicon.png`, ogImage: `${site.url}/og.png` })
    expect(b.logo).toBe(`${site.url}/acme-mark.png`)
  })

  it("is not fooled by a page that replaces getComputedStyle and breaks the DOM's prototypes", async () => {
    const b = await brandingOf("/tampered")
    expect(b.colors).toMatchObject({ primary: "#1d4ed8", background: "#ffffff", textPrimary: "#111827", link: "#2563eb" })
    expect(b.typography?.fontFamilies).toMatchObject({ primary: "Inter", heading: "Georgia" })
  })

  it("takes a lazy-loading logo's real file, not its placeholder", async () => {
    const b = await brandingOf("/lazy")
    expect(b.logo).toBe(`${site.url}/lazy-logo.png`)
  })

  it("reads a dark page's palette from what it paints, an oklch colour and an inline SVG logo", async () => {
    const b = await brandingOf("/dark")
    expect(b.colorScheme).toBe("dark")
    expect(b.colors).toMatchObject({ primary: "#7c3aed", background: "#0b1020", textPrimary: "#e5e7eb", link: "#22d3ee", error: "#f87171" })
    // The oklch() heading colour came back as sRGB hex, a brand colour in its own right.
    expect([b.colors?.secondary, b.colors?.accent].some((c) => c !== undefined && /^#[0-9a-f]{6}$/.test(c) && c !== "#7c3aed" && c !== "#22d3ee")).toBe(true)
    expect(b.typography?.fontSizes).toMatchObject({ h1: "56px", h2: "30px", body: "18px" })
    expect(b.typography?.lineHeights).toMatchObject({ heading: 1.1, body: 1.6 })
    expect(b.spacing).toMatchObject({ baseUnit: 10, borderRadius: "999px" })
    expect(b.components).toMatchObject({
      buttonPrimary: { background: "#7c3aed", textColor: "#ffffff" },
      buttonSecondary: { background: "transparent", borderColor: "#e5e7eb", textColor: "#e5e7eb" }
    })
    expect(b.logo).toMatch(/^data:image\/svg\+xml;utf8,/)
    expect(decodeURIComponent(b.logo!.split(",")[1])).toContain("<title>Nightjar</title>")
    expect(b.images).toMatchObject({ favicon: null, ogImage: null })
  })
})
