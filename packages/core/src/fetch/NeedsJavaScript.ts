/**
 * Whether a fetched HTML page needs JavaScript to show its content, so the pipeline renders it
 * in the browser instead of returning its empty shell. The rules, each cheap and each tested;
 * every one needs a script on the page (a page without scripts shows all it ever will):
 *
 * 1. Empty shell: almost no visible text (under `EMPTY_TEXT` characters), or almost none outside
 *    the site's navigation (`nav`, `aside`, a `header` or `footer` of the page rather than of an
 *    article or section, and their ARIA roles) when no rule below says more. bench/browser's
 *    held-out pages, ~2,000 characters of menus around a script-filled div and a product page
 *    whose description is rendered from JSON, were kept as their chrome when all text counted.
 * 2. Framework root: a known mount point (`#root`, `#app`, `#__next`, `#__nuxt`, `#___gatsby`,
 *    `#svelte`, `[ng-app]`, `<app-root>`, `[data-reactroot]`) with no text of its own, on a page
 *    with little text (`SHELL_TEXT`). Server-rendered apps fill their root and pass.
 * 3. Empty main: the page's `<main>` (or `[role=main]`) has (almost) no text while navigation,
 *    sidebar and footer around it do, on a page with little text.
 * 4. Loading placeholder: an element that says "Loading..." or is marked as a skeleton, spinner or
 *    placeholder, on a page with little text and no filled `<main>` or `<article>`.
 * 5. noscript hint: a `<noscript>` that asks to enable JavaScript, on a page with little text and
 *    no filled `<main>` or `<article>`. An article whose comment widget says "enable JavaScript to
 *    see comments" has its text in place and passes.
 *
 * Visible text leaves out script, style, template, noscript and svg, and whitespace. The page is
 * read once with htmlparser2's streaming tokenizer; nothing is built.
 */
import { Parser } from "htmlparser2"

/** Fewer visible characters than this, with scripts on the page, is an empty shell. */
export const EMPTY_TEXT = 250
/** An empty framework root or a noscript hint counts only when the whole page has less text than this. */
export const SHELL_TEXT = 1500

/** A `<main>` with less text than this is empty (a heading alone, a breadcrumb). */
const EMPTY_MAIN = 50
/** A `<main>` or `<article>` with at least this much text holds the page's content. */
export const FILLED_MAIN = 200

export type JavaScriptReason = "empty-shell" | "framework-root" | "empty-main" | "loading-placeholder" | "noscript-hint"

const rootIds = new Set(["root", "app", "__next", "__nuxt", "___gatsby", "svelte", "react-root", "app-root", "main-app"])
const rootTags = new Set(["app-root"])
const hidden = new Set(["script", "style", "template", "noscript", "svg"])
const voidTags = new Set(["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"])
const hint = /(enable|turn on|activate|switch on|allow)\s+(your\s+)?javascript|javascript\s+(is\s+)?(required|disabled|must be enabled|needs to be enabled|is needed)|(need|needs|requires?)\s+javascript|without\s+javascript/i

const loadingMarker = /(^|[\s_-])(skeleton|spinner|loader|loading|placeholder|shimmer)([\s_-]|$)/i
const loadingText = /^\s*(loading|please wait|one moment)\s*(\.\.\.|…)?\s*$/i

const isMain = (name: string, attributes: Record<string, string>): boolean => name === "main" || attributes.role === "main"

const chromeRoles = new Set(["navigation", "banner", "contentinfo", "complementary"])
/** Navigation around the content; a header or footer inside an article, section or main is the content's own. */
const isChrome = (name: string, attributes: Record<string, string>, inContent: boolean): boolean =>
  name === "nav" || name === "aside" || chromeRoles.has(attributes.role ?? "") || (!inContent && (name === "header" || name === "footer"))
const contentTags = new Set(["article", "section", "main"])

const isRoot = (name: string, attributes: Record<string, string>): boolean =>
  rootTags.has(name) || rootIds.has(attributes.id ?? "") || "ng-app" in attributes || "data-ng-app" in attributes || "data-reactroot" in attributes

/** An element being read whose text is measured: a framework root, a main or an article. */
interface Open {
  readonly depth: number
  readonly kind: "root" | "main" | "article"
  text: number
}

/** The first rule the page meets, or undefined when its HTML already shows its content. */
export const needsJavaScript = (html: string): JavaScriptReason | undefined => {
  let text = 0
  let scripts = 0
  let hiddenDepth = 0
  let noscriptText = ""
  let inNoscript = 0
  const open: Array<Open> = []
  let emptyRoot = false
  let emptyMain = false
  let filledMain = false
  let loading = false
  let depth = 0
  // Text inside navigation landmarks, and the depths of the open ones (and of open content elements).
  let chromeText = 0
  const chromeDepths: Array<number> = []
  const contentDepths: Array<number> = []
  const visible = (chunk: string): number => chunk.replace(/\s+/g, "").length
  const parser = new Parser({
    onopentag(name, attributes) {
      if (name === "script") scripts++
      if (name === "noscript") inNoscript++
      if (hidden.has(name)) hiddenDepth++
      if (voidTags.has(name)) return
      depth++
      if (hiddenDepth > 0) return
      if (isChrome(name, attributes, contentDepths.length > 0)) chromeDepths.push(depth)
      if (contentTags.has(name) || attributes.role === "main") contentDepths.push(depth)
      if (loadingMarker.test(`${attributes.class ?? ""} ${attributes.id ?? ""}`) || attributes["aria-busy"] === "true") loading = true
      if (isRoot(name, attributes)) open.push({ depth, kind: "root", text: 0 })
      else if (isMain(name, attributes)) open.push({ depth, kind: "main", text: 0 })
      else if (name === "article") open.push({ depth, kind: "article", text: 0 })
    },
    ontext(chunk) {
      if (inNoscript > 0 && noscriptText.length < 2000) noscriptText += chunk
      if (hiddenDepth > 0) return
      const count = visible(chunk)
      if (count > 0 && loadingText.test(chunk)) loading = true
      text += count
      if (chromeDepths.length > 0) chromeText += count
      for (const element of open) element.text += count
    },
    onclosetag(name) {
      if (name === "noscript" && inNoscript > 0) inNoscript--
      if (hidden.has(name) && hiddenDepth > 0) hiddenDepth--
      if (voidTags.has(name)) return
      if (chromeDepths[chromeDepths.length - 1] === depth) chromeDepths.pop()
      if (contentDepths[contentDepths.length - 1] === depth) contentDepths.pop()
      const element = open[open.length - 1]
      if (element !== undefined && element.depth === depth) {
        open.pop()
        if (element.kind === "root" && element.text === 0) emptyRoot = true
        if (element.kind === "main" && element.text < EMPTY_MAIN) emptyMain = true
        if (element.kind !== "root" && element.text >= FILLED_MAIN) filledMain = true
      }
      depth--
    }
  }, { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true })
  parser.end(html)
  if (scripts === 0) return undefined
  if (text < EMPTY_TEXT) return "empty-shell"
  if (text < SHELL_TEXT) {
    if (emptyRoot) return "framework-root"
    if (emptyMain && !filledMain) return "empty-main"
    if (filledMain) return undefined
    if (loading) return "loading-placeholder"
    if (hint.test(noscriptText)) return "noscript-hint"
  }
  // The site's navigation around (almost) nothing, however long the menus.
  if (text - chromeText < EMPTY_TEXT) return "empty-shell"
  return undefined
}
