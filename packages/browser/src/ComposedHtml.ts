/**
 * The rendered page as HTML, open shadow roots included. `page.content()` serializes the light
 * DOM only, so the text of a web component that renders into its shadow root (a design system's
 * card, a custom element of a docs site) was lost: bench/browser's shadow-DOM page came back
 * empty through every engine, the bare Playwright loop included. When the page has an open
 * shadow root, it is serialized as the composed tree a reader sees: each host's children are its
 * shadow root's, and each `<slot>` is replaced by the nodes assigned to it (or its fallback).
 * The copy is built in a separate document, so no custom element runs a callback and the page
 * is left as it was. A page without shadow roots is `page.content()` as before.
 */
import type { Page } from "playwright-core"

/** Runs in the page: the composed HTML, or null when no element has an open shadow root. */
export const composedHtmlScript = `(() => {
  const all = document.querySelectorAll("*")
  let shadows = false
  for (const el of all) if (el.shadowRoot) { shadows = true; break }
  if (!shadows) return null
  const doc = document.implementation.createHTMLDocument("")
  const copy = (node) => {
    // A template's content is not among its children: copied whole.
    if (node.nodeType !== 1 || node.localName === "template") return doc.importNode(node, true)
    const out = doc.importNode(node, false)
    const source = node.shadowRoot ?? node
    for (const child of source.childNodes) append(out, child)
    return out
  }
  const append = (parent, node) => {
    if (node.nodeType === 1 && node.localName === "slot") {
      const assigned = node.assignedNodes({ flatten: true })
      for (const child of assigned.length > 0 ? assigned : node.childNodes) parent.appendChild(copy(child))
      return
    }
    parent.appendChild(copy(node))
  }
  const doctype = document.doctype ? "<!DOCTYPE " + document.doctype.name + ">" : ""
  return doctype + copy(document.documentElement).outerHTML
})()`

/** The page's HTML, open shadow roots flattened into it. */
export const composedHtml = async (page: Page): Promise<string> =>
  ((await page.evaluate(composedHtmlScript)) as string | null) ?? (await page.content())
