/**
 * The `branding` format: the contract's BrandingProfile from what the browser sampled in the
 * page (`BrandingSamples.ts`), all deterministic: colours (BrandingPalette.ts), fonts,
 * typography and spacing (BrandingType.ts), components and images (BrandingParts.ts).
 * `personality` needs a language model and is left out.
 */
import { Option, Schema } from "effect"
import type { BrandingProfile } from "../contract/index.ts"
import { BrandingSamples } from "./BrandingSamples.ts"
import { palette } from "./BrandingPalette.ts"
import { components, pickButtons, pickLogo } from "./BrandingParts.ts"
import { spacing, typography } from "./BrandingType.ts"

export type Branding = typeof BrandingProfile.Type

const decodeSamples = Schema.decodeUnknownOption(BrandingSamples)

/** The profile from the page's samples; undefined when they are not samples (a page that tampered with the script). */
export const brandingFromSamples = (raw: unknown): Branding | undefined => {
  const decoded = decodeSamples(raw)
  if (Option.isNone(decoded)) return undefined
  const samples = decoded.value
  const colors = palette(samples)
  const buttons = pickButtons(samples, colors.primary)
  const type = typography(samples)
  const logo = pickLogo(samples) ?? null
  return {
    colorScheme: colors.colorScheme,
    colors: colors.colors,
    fonts: type.fonts,
    typography: type.typography,
    spacing: spacing(samples, buttons.primary),
    components: components(samples, buttons),
    images: { logo, favicon: samples.favicon, ogImage: samples.ogImage },
    logo
  }
}
