/**
 * Colour arithmetic for the `branding` format: hex, relative luminance (WCAG), saturation and a
 * distance between two colours. Colours come from the page as sRGB 0..255 with alpha (the page
 * script turns every CSS colour, `oklch()` included, into that).
 */
import type { Rgba } from "./BrandingSamples.ts"

const byte = (n: number) => Math.max(0, Math.min(255, Math.round(Number.isFinite(n) ? n : 0)))

/** A well-formed colour, or undefined for whatever else the page sent. */
export const asRgba = (value: unknown): Rgba | undefined => {
  if (!Array.isArray(value) || value.length !== 4 || !value.every((n) => typeof n === "number" && Number.isFinite(n))) return undefined
  return [byte(value[0]), byte(value[1]), byte(value[2]), Math.max(0, Math.min(1, value[3]))]
}

export const isOpaque = (color: Rgba | null | undefined): color is Rgba => color !== null && color !== undefined && color[3] >= 0.5

export const isTransparent = (color: Rgba | null | undefined): boolean => color === null || color === undefined || color[3] < 0.1

/** `#rrggbb` (alpha dropped: a role names a colour, and the page paints it over its background). */
export const toHex = (color: Rgba): string =>
  `#${color.slice(0, 3).map((n) => byte(n).toString(16).padStart(2, "0")).join("")}`

const linear = (channel: number) => {
  const c = channel / 255
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4
}

/** WCAG relative luminance, 0 (black) to 1 (white). */
export const luminance = (color: Rgba): number =>
  0.2126 * linear(color[0]) + 0.7152 * linear(color[1]) + 0.0722 * linear(color[2])

/**
 * Below this luminance a background is dark: it is where white and black text have the same
 * contrast ratio ((1 + 0.05) / (L + 0.05) = (L + 0.05) / 0.05 gives L = 0.179).
 */
export const DARK_LUMINANCE = 0.179

/** HSL saturation and lightness, 0..1. */
export const saturationLightness = (color: Rgba): { readonly saturation: number; readonly lightness: number } => {
  const [r, g, b] = [color[0] / 255, color[1] / 255, color[2] / 255]
  const max = Math.max(r, g, b)
  const min = Math.min(r, g, b)
  const lightness = (max + min) / 2
  const saturation = max === min ? 0 : (max - min) / (1 - Math.abs(2 * lightness - 1))
  return { saturation, lightness }
}

/** A colour a brand would pick: saturated, neither near black nor near white (greys, black and white are text and surfaces). */
export const isChromatic = (color: Rgba): boolean => {
  const { lightness, saturation } = saturationLightness(color)
  return saturation >= 0.25 && lightness >= 0.12 && lightness <= 0.92
}

/** Euclidean distance in sRGB, weighted for the eye ("redmean"); 0 to about 765. */
export const colorDistance = (a: Rgba, b: Rgba): number => {
  const mean = (a[0] + b[0]) / 2
  const dr = a[0] - b[0]
  const dg = a[1] - b[1]
  const db = a[2] - b[2]
  return Math.sqrt((2 + mean / 256) * dr * dr + 4 * dg * dg + (2 + (255 - mean) / 256) * db * db)
}

/** Colours closer than this read as the same colour (a hover shade, an anti-aliased border). */
export const SAME_COLOR = 60

/** Accumulates weights per colour, merging colours that read as the same. */
export class ColorTally {
  private readonly entries: Array<{ color: Rgba; weight: number }> = []

  add(color: Rgba | null | undefined, weight: number): void {
    if (color === null || color === undefined || weight <= 0) return
    const same = this.entries.find((entry) => colorDistance(entry.color, color) < SAME_COLOR / 3)
    if (same !== undefined) same.weight += weight
    else this.entries.push({ color, weight })
  }

  /** Heaviest first; ties keep the order colours were first seen in (document order). */
  ranked(): ReadonlyArray<Rgba> {
    return this.entries.map((entry, index) => ({ ...entry, index }))
      .sort((a, b) => b.weight - a.weight || a.index - b.index)
      .map((entry) => entry.color)
  }
}
