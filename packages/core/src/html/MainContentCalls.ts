/**
 * Calls to action: "Sign up", "Leave a comment", "Read more", "Add to cart". When such a phrase
 * is the whole text of a block it is a button drawn as a link or a heading, an invitation to go
 * elsewhere, never what the page says; references leave them out. Phrases inside running text
 * are untouched.
 */
import type { Element, Root } from "hast"
import { filterTree } from "./MainContentNodes.ts"
import { hasBlockChild } from "./MainContentRepeats.ts"

/** A block whose whole text is one of these is a button. */
const CALL_TO_ACTION =
  /^(?:sign ?up|sign in|log ?in|register|subscribe|join now|join us|get started|book a demo|request a (?:quote|demo)|learn more|read more|see more|show more|view all|view more|load more|leave a (?:comment|reply)|log in to reply|add a comment|click to (?:expand|shrink)|skip to (?:main )?content|add to (?:cart|bag|basket|wishlist)|buy now|shop now|try (?:it )?(?:for )?free|start (?:your )?free trial)(?: for free| today| now| here)?[\s.!…›»→>]*$/

const CTA_TAGS = new Set(["a", "p", "div", "span", "li", "h2", "h3", "h4", "h5", "h6"])

/** The longest block text judged as a call to action. */
const MAX_CTA_CHARS = 40

/** Normalised text of a short element; undefined as soon as it grows past `limit` (big blocks cost nothing). */
const shortText = (element: Element, limit: number): string | undefined => {
  let out = ""
  const visit = (el: Element): boolean => {
    for (const child of el.children) {
      if (child.type === "text") out += child.value
      else if (child.type === "element" && !visit(child)) return false
      if (out.length > limit * 3) return false
    }
    return true
  }
  if (!visit(element)) return undefined
  const text = out.replace(/\s+/g, " ").trim().toLowerCase()
  return text.length <= limit ? text : undefined
}

/** Drop blocks and links whose whole text is a call to action. */
export const dropCallsToAction = (content: Root): Root =>
  filterTree(content, (element) => {
    if (!CTA_TAGS.has(element.tagName) || hasBlockChild(element)) return false
    const text = shortText(element, MAX_CTA_CHARS)
    return text !== undefined && CALL_TO_ACTION.test(text)
  })
