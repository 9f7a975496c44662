/**
 * Whether a fetched HTML page needs JavaScript to show its content, so the pipeline renders it
 * in the browser instead of returning its empty shell. The rules, each cheap and each tested:
 *
 * 1. Empty shell: almost no visible text (under `EMPTY_TEXT` characters) while the page loads
 *    scripts. A page with no scripts and no text stays as it is: a browser would show nothing more.
 * 2. Framework root: a known mount point (`#root`, `#app`, `#__next`, `#__nuxt`, `#___gatsby`,
 *    `#svelte`, `[ng-app]`, `<app-root>`, `[data-reactroot]`) with no text of its own on a page
 *    with little text outside it (`SHELL_TEXT`). Server-rendered apps fill their root and pass.
 * 3. noscript hint: a `<noscript>` that asks to enable JavaScript, on a page with little text. An
 *    article whose comment widget says "enable JavaScript to see comments" has text and passes.
 *
 * Visible text leaves out script, style, template, noscript and svg. The page is read once with
 * htmlparser2's streaming tokenizer; nothing is built.
 */
import { Parser } from "htmlparser2"

/** Fewer visible characters than this, with scripts on the page, is an empty shell. */
export const EMPTY_TEXT = 250
/** An empty framework root or a noscript hint counts only when the whole page has less text than this. */
export const SHELL_TEXT = 1500

export type JavaScriptReason = "empty-shell" | "framework-root" | "noscript-hint"

const rootIds = new Set(["root", "app", "__next", "__nuxt", "___gatsby", "svelte", "react-root", "app-root", "main-app"])
const rootTags = new Set(["app-root"])
const hidden = new Set(["script", "style", "template", "noscript", "svg"])
const voidTags = new Set(["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"])
const hint = /(enable|turn on|activate|switch on|allow)\s+(your\s+)?javascript|javascript\s+(is\s+)?(required|disabled|must be enabled|needs to be enabled|is needed)|(need|needs|requires?)\s+javascript|without\s+javascript/i

const isRoot = (name: string, attributes: Record<string, string>): boolean =>
  rootTags.has(name) || rootIds.has(attributes.id ?? "") || "ng-app" in attributes || "data-ng-app" in attributes || "data-reactroot" in attributes

/** The first rule the page meets, or undefined when its HTML already shows its content. */
export const needsJavaScript = (html: string): JavaScriptReason | undefined => {
  let text = 0
  let scripts = 0
  let hiddenDepth = 0
  let noscriptText = ""
  let inNoscript = 0
  // Open framework roots: the element depth they opened at and the text seen inside.
  const roots: Array<{ depth: number; text: number }> = []
  let emptyRoot = false
  let depth = 0
  const visible = (chunk: string): number => chunk.replace(/\s+/g, "").length
  const parser = new Parser({
    onopentag(name, attributes) {
      if (name === "script") scripts++
      if (name === "noscript") inNoscript++
      if (hidden.has(name)) hiddenDepth++
      if (voidTags.has(name)) return
      depth++
      if (hiddenDepth === 0 && isRoot(name, attributes)) roots.push({ depth, text: 0 })
    },
    ontext(chunk) {
      if (inNoscript > 0 && noscriptText.length < 2000) noscriptText += chunk
      if (hiddenDepth > 0) return
      const count = visible(chunk)
      text += count
      for (const root of roots) root.text += count
    },
    onclosetag(name) {
      if (name === "noscript" && inNoscript > 0) inNoscript--
      if (hidden.has(name) && hiddenDepth > 0) hiddenDepth--
      if (voidTags.has(name)) return
      const root = roots[roots.length - 1]
      if (root !== undefined && root.depth === depth) {
        roots.pop()
        if (root.text === 0) emptyRoot = true
      }
      depth--
    }
  }, { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true })
  parser.end(html)
  if (scripts === 0) return undefined
  if (text < EMPTY_TEXT) return "empty-shell"
  if (emptyRoot && text < SHELL_TEXT) return "framework-root"
  if (hint.test(noscriptText) && text < SHELL_TEXT) return "noscript-hint"
  return undefined
}
