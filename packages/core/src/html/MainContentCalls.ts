/**
 * Calls to action: "Sign up", "Leave a comment", "Read more", "Add to cart". When such a phrase
 * is the whole text of a block it is a button drawn as a link or a heading, an invitation to go
 * elsewhere, never what the page says; references leave them out. Phrases inside running text
 * are untouched. The same pass drops widget labels, a forum post's counters, badges and timestamps, the
 * small print of forms and offers, and tickers.
 */
import type { Element, Root } from "hast"
import { boundedText, filterTree } from "./MainContentNodes.ts"
import { hasBlockChild } from "./MainContentRepeats.ts"

/** A block whose whole text is one of these is a button. */
const CALL_TO_ACTION =
  /^(?:sign ?up|sign in|log ?in|register|subscribe|join now|join us|get started|book a demo|request a (?:quote|demo)|learn more|read more|read (?:the )?full (?:article|story|post|review)|read (?:the )?case study|see more|show more|view all|view more|load more|leave a (?:comment|reply)|log in to reply|add a comment|click to (?:expand|shrink)|skip to (?:main )?content|add to (?:cart|bag|basket|wishlist)|buy now|shop now|try (?:it )?(?:for )?free|contact us|get (?:a |your )?(?:free )?quote|discussion about this post|ready for more\??|no posts|reply|report(?: (?:inappropriate content|post|abuse|this post))?|code: select all|select all)(?: for free| today| now| here)?[\s.!…›»→>]*$/

const CTA_TAGS = new Set(["a", "p", "div", "span", "li", "dd", "dt", "h2", "h3", "h4", "h5", "h6", "small", "label", "form"])

/** The longest block text judged as a call to action. */
const MAX_CTA_CHARS = 40

/** Normalised text of a short element, at most `limit` characters; undefined otherwise (big blocks cost nothing). */
const shortText = (element: Element, limit: number): string | undefined => {
  const text = boundedText(element, limit * 3)
  return text !== undefined && text.length <= limit ? text : undefined
}

/**
 * The small print of sign-up forms and consent banners: "By subscribing, you agree to our
 * terms", "Sign up for our newsletter", "You can unsubscribe at any time", "This site uses
 * cookies"; also a form's status lines, invitations to start a trial or rate the page, the
 * copyright line, affiliate disclosures, tag lines and the conditions of an offer ("while
 * supplies last", "subject to credit approval"). It addresses the visitor about the site or
 * the sale, never about the page's subject.
 */
const SMALL_PRINT = [
  /\bby (?:clicking|submitting|subscribing|signing up|registering|providing (?:my|your) (?:e-?mail|information|details)|entering (?:my|your) e-?mail|using (?:this|our) (?:site|website))\b[^.]{0,120}\b(?:i|you) (?:agree|consent|acknowledge|accept)/,
  /\b(?:sign up|subscribe|join|register|opt in)\b[^.]{0,30}\b(?:to|for) (?:our|the) (?:[\w-]+ ){0,3}(?:newsletters?|mailing list|e-?mails|e-?newsletters?|updates)\b/,
  /\bjoin our (?:[\w-]+ ){0,3}(?:newsletter|mailing list)\b/,
  /\b(?:unsubscribe|opt out)(?: at)? any ?time\b/,
  /\b(?:consent|consenting) to receive\b/,
  /\b(?:this|our) (?:site|website) uses cookies\b|\bwe use cookies (?:to|on|and|so|for)\b/,
  /\bthis site is protected by (?:re|h)captcha\b/,
  // a form's own status lines (shown after submitting) and a template's placeholder copy
  /^(?:thank you|thanks)[!.,]? (?:your submission has been received|for (?:subscribing|signing up))\b/,
  /^oops[!.,]? something went wrong while submitting\b/,
  /^lorem ipsum dolor sit amet\b/,
  // invitations to sign up, start a trial (any length, so the buttons too), fill in a form or rate the page
  /^sign up (?:now|today|and|for)\b/,
  /^(?:start|begin|get) (?:your |a )?(?:\d+[- ]day )?free trial\b|^(?:\d+[- ]day )?free trial[.!]? no credit card required\b/,
  /^fill (?:out|in) the (?:\w+ )?form\b/,
  /^(?:did you find what you were looking for|was this (?:page|article|answer|information) (?:helpful|useful))\b/,
  // the site's copyright line, affiliate-link disclosures and tag lines
  /^(?:copyright )?(?:©|\(c\)|copyright) ?(?:\d{4}[-–]?)+\b.{0,140}$|^[^.]{0,80}\ball rights reserved\.?$/,
  /\b(?:this|the|our|some of (?:my|our)) (?:post|posts|article|articles|page|site) (?:may )?contains? affiliate links\b/,
  /\b(?:we|i) (?:may )?(?:earn|receive) (?:a )?(?:small )?commissions?\b/,
  /^(?:tags?|filed under|categor(?:y|ies)): /,
  // an offer's conditions
  /\b(?:subject to credit approval|not (?:be )?combinable|cannot be combined with|while supplies last|see (?:store|site) for details|offer (?:is )?valid|(?:terms|exclusions|restrictions) (?:and conditions )?(?:may )?apply|minimum monthly payments? required)\b/
]

/** Labels of widgets rather than text: a loading placeholder, an ad slot's caption, a dialog's close button, a product card's badge. */
const WIDGET_LABEL = /^(?:loading|sponsored|advertisement|close|back to top|table of contents|free shipping|new arrivals?|best ?sellers?)[\s.…↑^]*$/

/** A bare timestamp as a whole block (a post's or comment's time), date and clock time both. */
const TIMESTAMP =
  /^(?:\d{4}-\d{2}-\d{2}[ t]\d{2}:\d{2}(?::\d{2})?(?: ?[+-]\d{2}:?\d{2}|z)?|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]* \d{1,2},? \d{4},? (?:at )?\d{1,2}:\d{2}(?: ?[ap]m)?)$/

/** A forum post's furniture around its text: the poster's badges and counters, the vote widget. */
const POST_FURNITURE = /^(?:original poster|join(?:ed)? date: .{1,20}|joined: .{1,20}|(?:posts|messages|reaction score): [\d,.]+k?|[\d,.]+k? (?:views|replies|likes?)|followers:? [\d,.]+k?|upvote \d* ?downvote|quote|go to topic listing)$/

/** The longest block text judged as small print: a paragraph of a form, not an article. */
const MAX_SMALL_PRINT_CHARS = 400

/**
 * A ticker: one short phrase said over and over ("Book now * Book now * Book now ..."), a
 * marquee drawn with a run of copies for its scrolling animation. Words are compared,
 * separators (bullets, stars, dashes, bars) ignored, in linear time per period; a phrase with
 * sentence punctuation is prose said twice, not a ticker.
 */
const isTicker = (text: string): boolean => {
  // sentences repeated (filler, a test page) are prose, however dull
  if (/[.,;:!?]/.test(text)) return false
  const words = text.split(/[\s*·•|/\\–—-]+/).filter((w) => w !== "")
  for (let period = 1; period <= MAX_TICKER_PERIOD && period * 4 <= words.length; period++) {
    if (words.slice(0, period).join(" ").length < 3) continue
    let i = period
    while (i < words.length && words[i] === words[i % period]) i++
    if (i === words.length) return true
  }
  return false
}

/** The most words in a ticker's phrase. */
const MAX_TICKER_PERIOD = 12

/** The longest block text tested for a ticker. */
const MAX_TICKER_CHARS = 4000

const TICKER_RUNS = new Set(["ul", "ol", "div", "section"])

/** The same ticker drawn as a run of identical items: at least four children, all with one short text. */
const isTickerRun = (element: Element): boolean => {
  if (!TICKER_RUNS.has(element.tagName)) return false
  let first: string | undefined
  let count = 0
  for (const child of element.children) {
    if (child.type === "text") {
      if (child.value.trim() !== "") return false
      continue
    }
    if (child.type !== "element") continue
    const text = shortText(child, 100)
    if (text === undefined || text.length < 3 || (first !== undefined && text !== first)) return false
    first = text
    count++
  }
  return count >= 4
}

/** Drop blocks and links whose whole text is a call to action, sign-up or consent small print, or a ticker. */
export const dropCallsToAction = (content: Root): Root =>
  filterTree(content, (element) => {
    if (isTickerRun(element)) return true
    if (!CTA_TAGS.has(element.tagName) || hasBlockChild(element)) return false
    const text = shortText(element, MAX_TICKER_CHARS)
    if (text === undefined) return false
    if (text.length <= MAX_CTA_CHARS && (CALL_TO_ACTION.test(text) || WIDGET_LABEL.test(text) || POST_FURNITURE.test(text) || TIMESTAMP.test(text))) return true
    if (text.length <= MAX_SMALL_PRINT_CHARS && SMALL_PRINT.some((re) => re.test(text))) return true
    return isTicker(text)
  })
