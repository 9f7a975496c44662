/**
 * The branding profile from samples, without a browser: the base unit, the logo's score, the
 * palette of a page with no brand colours, and samples a page tampered with.
 */
import { describe, expect, it } from "vitest"
import { brandingFromSamples } from "../../src/branding/Branding.ts"
import type { BrandingSamples, LogoCandidate, StyleSample } from "../../src/branding/BrandingSamples.ts"
import { LOGO_SCORE, logoScore } from "../../src/branding/BrandingParts.ts"
import { baseUnit, firstFamily } from "../../src/branding/BrandingType.ts"
import { luminance } from "../../src/branding/Colors.ts"

const element = (over: Partial<StyleSample>): StyleSample => ({
  kind: "text", tag: "p", hint: "", text: 100, color: [17, 17, 17, 1], background: [0, 0, 0, 0], behind: [255, 255, 255, 1],
  borderColor: null, borderWidth: 0, borderRadius: "0px", fontFamily: "Helvetica, Arial, sans-serif", fontSize: 16, fontWeight: 400,
  lineHeight: null, margin: [0, 0, 16, 0], padding: [0, 0, 0, 0], area: 50000, inHeader: false, ...over
})

const samples = (over: Partial<BrandingSamples>): BrandingSamples => ({
  url: "https://example.org/", title: "Example", siteName: null, background: [255, 255, 255, 1], elements: [], variables: [],
  favicon: null, ogImage: null, logos: [], ...over
})

const logo = (over: Partial<LogoCandidate>): LogoCandidate => ({
  kind: "img", src: "https://example.org/a.png", alt: "", hint: "", inHeader: false, linksHome: false, width: 120, height: 40, top: 900, ...over
})

describe("branding from samples", () => {
  it("takes the largest unit that divides most spacings", () => {
    expect(baseUnit([8, 16, 24, 32, 8, 12])).toBe(8)
    expect(baseUnit([10, 20, 30, 40, 5])).toBe(10)
    expect(baseUnit([4, 12, 20, 28])).toBe(4)
    expect(baseUnit([7, 13, 17])).toBe(4)
    expect(baseUnit([])).toBe(4)
  })

  it("scores a header image linking home as a logo, and a small icon or a photo down the page not", () => {
    expect(logoScore(logo({ inHeader: true, linksHome: true }), [])).toBeGreaterThanOrEqual(LOGO_SCORE)
    expect(logoScore(logo({ top: 20, alt: "Example logo" }), [])).toBeGreaterThanOrEqual(LOGO_SCORE)
    expect(logoScore(logo({ top: 20, alt: "Example" }), ["example"])).toBeGreaterThanOrEqual(LOGO_SCORE)
    // One signal alone is not enough: a logo-named image down in the footer, any image in the header.
    expect(logoScore(logo({ top: 4000, alt: "Parent company logo" }), [])).toBeLessThan(LOGO_SCORE)
    expect(logoScore(logo({ inHeader: true, alt: "Spring sale" }), [])).toBeLessThan(LOGO_SCORE)
    expect(logoScore(logo({ inHeader: true, width: 20, height: 20, alt: "Search" }), [])).toBeLessThan(LOGO_SCORE)
    expect(logoScore(logo({ width: 800, height: 500 }), [])).toBeLessThan(LOGO_SCORE)
  })

  it("names the first family a stack asks for", () => {
    expect(firstFamily(`"Fira Code", ui-monospace, monospace`)).toBe("Fira Code")
    expect(firstFamily("system-ui, sans-serif")).toBe("system-ui")
  })

  it("gives a page without brand colours a palette from its text, and a dark scheme for a dark background", () => {
    const profile = brandingFromSamples(samples({ background: [20, 20, 20, 1], elements: [element({ color: [230, 230, 230, 1] })] }))
    expect(profile?.colorScheme).toBe("dark")
    expect(profile?.colors).toMatchObject({ primary: "#e6e6e6", secondary: "#e6e6e6", accent: "#e6e6e6", background: "#141414", textPrimary: "#e6e6e6" })
    expect(profile?.colors).not.toHaveProperty("success")
    expect(profile?.logo).toBeNull()
    expect(luminance([20, 20, 20, 1])).toBeLessThan(0.179)
  })

  it("takes the brand's colours from the names design systems give them, not from their shades, what is set on them, or the page's background", () => {
    const color = (hex: string) => [parseInt(hex.slice(1, 3), 16), parseInt(hex.slice(3, 5), 16), parseInt(hex.slice(5, 7), 16), 1] as const
    const variables = [
      ["--md-sys-color-on-primary", "#ffffff"], ["--bs-primary-bg-subtle", "#cfe2ff"], ["--theme-global-color-primary", "#fefefe"], ["--bs-primary", "#0d6efd"],
      ["--bs-secondary-text-emphasis", "#2b2f32"], ["--bs-secondary", "#6c757d"], ["--bs-danger", "#dc3545"], ["--bs-success", "#198754"]
    ].map(([name, hex]) => ({ name, color: color(hex) }))
    const profile = brandingFromSamples(samples({ variables, elements: [element({})] }))
    expect(profile?.colors).toMatchObject({ primary: "#0d6efd", secondary: "#6c757d", error: "#dc3545", success: "#198754" })
    expect(profile?.colors).not.toHaveProperty("warning")
  })

  it("refuses samples that are not samples", () => {
    expect(brandingFromSamples({ url: 1 })).toBeUndefined()
    expect(brandingFromSamples(samples({ elements: [element({ color: "red" as never })] }))).toBeUndefined()
    expect(brandingFromSamples(null)).toBeUndefined()
  })
})
