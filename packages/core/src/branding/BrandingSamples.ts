/**
 * What the browser samples in a page for the `branding` format: computed styles of the elements
 * that carry a brand (body text, headings, links, buttons, inputs, code, status messages,
 * coloured surfaces), the colours the page names in custom properties, and the candidates for
 * its logo, favicon and og image. The engine collects them (`@strata/browser`'s
 * BrandingScript.ts); `Branding.ts` turns them into the contract's profile. Everything here is
 * plain data that crosses the page boundary as JSON, so it is decoded with these schemas: a
 * page can tamper with what its own scripts see, and return anything.
 */

import { Schema } from "effect"

const Finite = Schema.Finite
/** A colour as the page rendered it: sRGB 0..255 and alpha 0..1. */
export const Rgba = Schema.Tuple([Finite, Finite, Finite, Finite])
export type Rgba = readonly [number, number, number, number]
const Color = Schema.NullOr(Rgba)

export const SampleKind = Schema.Literals(["body", "h1", "h2", "h3", "text", "link", "button", "input", "code", "status", "surface"])

export const StyleSample = Schema.Struct({
  kind: SampleKind,
  tag: Schema.String,
  /** The element's class and id, lower case: names like `btn-primary` or `alert-error` say what it is. */
  hint: Schema.String,
  /** Characters of text the element shows (its own for text, all of it for links and buttons). */
  text: Finite,
  color: Color,
  /** Its own background (transparent when it has none). */
  background: Color,
  /** The first opaque background of its ancestors (the page's background when none is painted). */
  behind: Color,
  borderColor: Color,
  borderWidth: Finite,
  borderRadius: Schema.String,
  fontFamily: Schema.String,
  /** px */
  fontSize: Finite,
  fontWeight: Finite,
  /** px; null for `normal`. */
  lineHeight: Schema.NullOr(Finite),
  /** top, right, bottom, left in px. */
  margin: Schema.Array(Finite),
  padding: Schema.Array(Finite),
  /** Rendered width x height in px. */
  area: Finite,
  inHeader: Schema.Boolean
})
export type StyleSample = typeof StyleSample.Type

/** A custom property of the root that holds a colour (`--brand-primary: #1d4ed8`). */
export const ColorVariable = Schema.Struct({ name: Schema.String, color: Rgba })
export type ColorVariable = typeof ColorVariable.Type

export const LogoCandidate = Schema.Struct({
  kind: Schema.Literals(["img", "svg", "background"]),
  /** Absolute URL, or a `data:image/svg+xml` URL for an inline SVG. */
  src: Schema.String,
  /** alt, aria-label, title, or an SVG's `<title>`. */
  alt: Schema.String,
  /** class, id and src of the element and of the link around it, lower case. */
  hint: Schema.String,
  inHeader: Schema.Boolean,
  /** Inside a link to the site's home page. */
  linksHome: Schema.Boolean,
  width: Finite,
  height: Finite,
  /** Distance from the top of the document, px. */
  top: Finite
})
export type LogoCandidate = typeof LogoCandidate.Type

export const BrandingSamples = Schema.Struct({
  url: Schema.String,
  title: Schema.String,
  /** og:site_name or application-name. */
  siteName: Schema.NullOr(Schema.String),
  /** The page's background: html or body, else the surface that covers most of the page; white when none is painted. */
  background: Rgba,
  elements: Schema.Array(StyleSample),
  variables: Schema.Array(ColorVariable),
  favicon: Schema.NullOr(Schema.String),
  ogImage: Schema.NullOr(Schema.String),
  logos: Schema.Array(LogoCandidate)
})
export type BrandingSamples = typeof BrandingSamples.Type
