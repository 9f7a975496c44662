/**
 * The cleaning stage: turns a parsed page into the tree every later stage (main content, tag
 * filters, markdown, the `html` format) works on. In one pre-order pass it
 * - drops elements that carry no content (script, style, noscript, meta, head, title, template,
 *   link, base) and comments;
 * - resolves relative URLs against `<base href>` (itself resolved against the final URL) or the final URL;
 * - promotes lazy-loaded images (`data-src`, `data-lazy-src`, `data-original`, `data-srcset`) when
 *   the real `src` is missing or a placeholder;
 * - resolves `srcset` to its largest candidate, which becomes `src`.
 * The tree is changed in place (it is the pipeline's own copy, just parsed).
 */
import type { Element, ElementContent, Root } from "hast"
import { stringProp } from "./HtmlNodes.ts"

const DROPPED = new Set(["script", "style", "noscript", "meta", "head", "template", "link", "base", "title"])

/** Attributes (as hast properties) that hold one URL. */
const URL_PROPERTIES = ["href", "src", "poster", "action", "cite", "background", "longDesc", "formAction", "data"]

/** A src that only stands in for the real image until a script swaps it. */
const PLACEHOLDER = /^data:|(?:^|[/._-])(?:blank|spacer|placeholder|pixel|transparent|lazy|loading|loader|empty|grey|gray|1x1)[\w-]*\.(?:gif|png|svg|jpe?g|webp)(?:$|[?#])/i

/** Resolves one URL; leaves it unchanged when it cannot be parsed (the page's own error). */
export class UrlResolver {
  private base: URL | undefined
  constructor(url: string | undefined) {
    this.base = url === undefined ? undefined : (URL.parse(url) ?? undefined)
  }
  /** Applies a `<base href>`: it is itself relative to the document URL. */
  rebase(href: string): void {
    const next = URL.parse(href.trim(), this.base?.href)
    if (next !== null) this.base = next
  }
  get baseUrl(): string | undefined {
    return this.base?.href
  }
  resolve(value: string): string {
    const trimmed = value.trim()
    if (trimmed === "") return value
    const resolved = URL.parse(trimmed, this.base?.href)
    return resolved === null ? trimmed : resolved.href
  }
}

interface Candidate {
  readonly url: string
  /** Width in pixels (`w`) or density (`x`); sorted within one kind. */
  readonly size: number
  readonly kind: "w" | "x"
}

/**
 * Splits a `srcset` into candidates. URLs may hold commas (image CDNs: `w_100,h_80`), so a comma
 * only ends a candidate after whitespace-separated descriptors or at the URL's very end.
 */
export const parseSrcset = (srcset: string): Array<Candidate> => {
  const out: Array<Candidate> = []
  let i = 0
  const n = srcset.length
  const isSpace = (c: string | undefined) => c === " " || c === "\t" || c === "\n" || c === "\r" || c === "\f"
  while (i < n) {
    while (i < n && (isSpace(srcset[i]) || srcset[i] === ",")) i++
    if (i >= n) break
    let start = i
    while (i < n && !isSpace(srcset[i])) i++
    let url = srcset.slice(start, i)
    let descriptor = ""
    if (url.endsWith(",")) {
      url = url.replace(/,+$/, "")
    } else {
      start = i
      let depth = 0
      while (i < n) {
        const c = srcset[i]
        if (c === "(") depth++
        else if (c === ")") depth--
        else if (c === "," && depth <= 0) break
        i++
      }
      descriptor = srcset.slice(start, i).trim()
      i++
    }
    if (url === "") continue
    const match = /^(\d+(?:\.\d+)?)([wx])$/i.exec(descriptor.split(/\s+/)[0] ?? "")
    if (match !== null) out.push({ url, size: Number(match[1]), kind: match[2]!.toLowerCase() as "w" | "x" })
    else out.push({ url, size: 1, kind: "x" })
  }
  return out
}

/** The largest candidate: widths beat densities (a `w` set says more than `1x`). */
export const largestCandidate = (srcset: string): string | undefined => {
  let best: Candidate | undefined
  for (const candidate of parseSrcset(srcset)) {
    if (best === undefined) best = candidate
    else if (candidate.kind === best.kind ? candidate.size > best.size : candidate.kind === "w") best = candidate
  }
  return best?.url
}

const resolveSrcset = (srcset: string, resolver: UrlResolver): string =>
  parseSrcset(srcset).map((c) => `${resolver.resolve(c.url)}${c.kind === "x" && c.size === 1 ? "" : ` ${c.size}${c.kind}`}`).join(", ")

const fixImage = (element: Element, resolver: UrlResolver): void => {
  const props = element.properties
  const src = stringProp(element, "src")
  const lazy = stringProp(element, "dataSrc") ?? stringProp(element, "dataLazySrc") ?? stringProp(element, "dataOriginal")
  const lazySet = stringProp(element, "dataSrcset") ?? stringProp(element, "dataLazySrcset")
  const placeholder = src === undefined || src.trim() === "" || PLACEHOLDER.test(src.trim())
  if (placeholder && lazy !== undefined && lazy.trim() !== "") props.src = lazy
  const srcset = placeholder && lazySet !== undefined && lazySet.trim() !== "" ? lazySet : stringProp(element, "srcSet")
  if (srcset !== undefined) {
    const largest = largestCandidate(srcset)
    if (largest !== undefined) props.src = largest
    delete props.srcSet
    delete props.sizes
  }
  const final = stringProp(element, "src")
  if (final !== undefined) props.src = resolver.resolve(final)
}

/**
 * Cleans the tree in place and returns it, with the base URL that the page's relative URLs
 * were resolved against (none: relative URLs stay relative).
 */
export const cleanHtml = (root: Root, url: string | undefined): { root: Root; baseUrl: string | undefined } => {
  const resolver = new UrlResolver(url)
  let baseSeen = false
  const visit = (parent: Root | Element): void => {
    const children = parent.children
    let write = 0
    for (let read = 0; read < children.length; read++) {
      const child = children[read]!
      if (child.type === "comment" || child.type === "doctype") continue
      if (child.type === "element") {
        const tag = child.tagName
        if (tag === "base" && !baseSeen) {
          const href = stringProp(child, "href")
          if (href !== undefined) {
            resolver.rebase(href)
            baseSeen = true
          }
        }
        if (DROPPED.has(tag)) {
          // `head` holds the metadata, read before cleaning; its `base` still counts.
          if (tag === "head") visitBaseOnly(child)
          // Main-content hints may render a `<noscript>` (Discourse threads): its URLs must be absolute too.
          else if (tag === "noscript") visit(child)
          continue
        }
        if (tag === "img") fixImage(child, resolver)
        else {
          for (const name of URL_PROPERTIES) {
            const value = child.properties[name]
            if (typeof value === "string") child.properties[name] = resolver.resolve(value)
          }
          if (tag === "source" || tag === "video") {
            const srcset = stringProp(child, "srcSet")
            if (srcset !== undefined) child.properties.srcSet = resolveSrcset(srcset, resolver)
          }
        }
        visit(child)
      }
      children[write++] = child as ElementContent
    }
    children.length = write
  }
  const visitBaseOnly = (head: Element): void => {
    for (const child of head.children) {
      if (child.type === "element" && child.tagName === "base" && !baseSeen) {
        const href = stringProp(child, "href")
        if (href !== undefined) {
          resolver.rebase(href)
          baseSeen = true
        }
      }
    }
  }
  visit(root)
  return { root, baseUrl: resolver.baseUrl }
}
