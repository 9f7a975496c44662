/**
 * The vocabulary the main-content stages judge elements by: tag sets and class/id token
 * patterns for page chrome, boilerplate widgets and content containers. Kept in one place so
 * that the cleaner and the scorer agree on what "looks like navigation" means.
 */
import type { Element } from "hast"
import { attr, classAndId } from "./MainContentNodes.ts"

/** Never content, whatever the page. */
export const JUNK_TAGS = new Set([
  "head", "title", "base", "script", "style", "noscript", "template", "iframe", "object", "embed", "canvas", "svg", "math",
  "input", "button", "select", "textarea", "option", "label", "dialog", "link", "meta", "audio", "video", "source", "track", "map"
])

/** Page chrome by tag: dropped unless it holds most of the page's text. */
export const CHROME_TAGS = new Set(["nav", "aside", "footer", "header", "menu"])

export const CHROME_ROLES = new Set([
  "navigation", "banner", "contentinfo", "complementary", "search", "dialog", "alertdialog", "menu", "menubar", "toolbar"
])

/** Block-level tags: an element with none of these as children is a run of inline text. */
export const BLOCK_TAGS = new Set([
  "address", "article", "aside", "blockquote", "dd", "details", "dialog", "div", "dl", "dt", "fieldset", "figcaption", "figure",
  "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "li", "main", "nav", "ol", "p", "pre", "section",
  "table", "tbody", "thead", "tfoot", "tr", "td", "th", "ul", "summary", "menu"
])

/** A regular expression matching any of `alternatives` as a whole class/id token (split at spaces, `_` and `-`). */
const classTokens = (alternatives: string): RegExp => new RegExp(`(?:^|[\\s_-])(?:${alternatives})(?:$|[\\s_-])`)

/** Disclaimers, legal small print and author boxes: chrome on both paths. */
const FINE_PRINT_AND_AUTHORS =
  "disclaimers?|legal|fine-?print|small-?print|legal-?text|author-?box|about-?(?:the-?)?author|author-?info|author-?details|author-?card|author-?description|author-?bio"

/** Class/id tokens of boilerplate blocks (navigation, widgets, comments, promotions, consent). */
export const UNLIKELY = classTokens(
  "banner|breadcrumbs?|combx|comments?|commentlist|community|disqus|extra|foot|footer|gdpr|header|legends|menu|menus|navbar|navigation|nav|related|suggested|similar|recommended|also-?like|more-?topics|remark|replies|rss|shoutbox|sidebar|side-?bar|skyscraper|social|sponsor|sponsored|supplemental|ad-break|agegate|pagination|pager|popup|modal|cookies?|consent|newsletter|subscribe|subscription|signup|share|sharing|sharebar|promo|outbrain|taboola|recirc|trending|most-?popular|toolbar|masthead|skip|tags|tag-?list|byline|meta|breadcrumb|advert|advertisement|ads?|toc|table-of-contents|site-?header|site-?footer|topbar|top-?bar|offcanvas|off-canvas|drawer|overlay|lightbox|print|rating|reactions|feedback|" + FINE_PRINT_AND_AUTHORS
)

/**
 * Boilerplate so distinctive that size never saves it: consent managers and modal overlays
 * often carry more prose than a short forum post.
 */
export const ALWAYS_BOILERPLATE =
  /(?:^|[\s_-])(?:onetrust|cookie|cookies|cookiebanner|cookie-?consent|consent|gdpr|ccpa|truste|didomi|usercentrics|qc-cmp2|cky|popup|modal|lightbox|sr-only|screen-reader-text|visually-?hidden)(?:$|[\s_-])/

/** The chrome subset of UNLIKELY, for the multi-block path, which has no retry ladder. */
export const CHROME_CLASS = classTokens(
  "breadcrumbs?|comments?|commentlist|disqus|footer|site-?footer|header|site-?header|masthead|menu|menus|navbar|navigation|nav|related|suggested|recommended|also-?like|more-?topics|sidebar|side-?bar|social|share|sharing|sharebar|newsletter|subscribe|signup|popup|modal|cookies?|consent|gdpr|pagination|pager|skip|toolbar|topbar|top-?bar|drawer|advert|advertisement|ads?|sponsored|outbrain|taboola|promo|banner|" + FINE_PRINT_AND_AUTHORS
)

/** Class/id tokens of customer review widgets (dropped on product pages only). */
export const REVIEWS = classTokens("reviews?|ratings?-?(?:and|&)?-?reviews?")

/** Per-post furniture of forum engines: user panels, signatures, post toolbars, guest prompts. */
export const FORUM_CHROME =
  /(?:^|[\s_-])(?:signature|sig|sig_text|sigline|postsig|usertitle|userbanner|userextras|userstats|user-?stats|postprofile|profile-?icons|postfoot|post-?footer|postcontrols|post-?controls|post-?menu|post-?actions|memberaction|reactions?|reactionsbar|notices?|announcements?|guest-?teaser|cguestteaser|dropdown-container|pagenav|pagenavlinkgroup|block-outer|structitem|feedlinks|brdmenu|brdheader|quote-?icon|action-?bar|actionbar|topic-?map|topic-?footer-?buttons|timeline|similar-?threads|breadcrumb)(?:$|[\s_-])/

/** Chrome tokens no content-like token rescues ("related products entry-section" is still related). */
export const STRONG_CHROME =
  /(?:^|[\s_-])(?:related|upsells?|up-sells?|cross-?sells?|crosssells?|also-?like|you-?may-?also-?like|recommended|share|sharing|social|breadcrumbs?|pagination|pager|navbar|navigation)(?:$|[\s_-])/

/**
 * Class/id tokens that rescue an element from UNLIKELY: it might be the content wrapper. A FAQ
 * is content whatever else its class says (Webflow's `faq_tabs-menu` holds the answers).
 */
export const MAYBE = /(?:^|[\s_-])(?:and|faqs?|article|body|column|content|main|shadow|post|entry|story|text|prose|markdown|article-?body|post-?body)(?:$|[\s_-])/

export const POSITIVE =
  /(?:^|[\s_-])(?:article|body|content|entry|hentry|h-entry|main|page|post|text|blog|story|prose|markdown|article-?body|post-?content|entry-?content|rich-?text|documentation|docs?)(?:$|[\s_-])/

export const NEGATIVE =
  /(?:^|[\s_-])(?:ad|ads|hidden|hid|banner|combx|comments?|com|contact|foot|footer|gdpr|masthead|media|meta|outbrain|promo|related|scroll|share|sharing|shoutbox|sidebar|skyscraper|sponsor|shopping|tags|widget|cookie|newsletter|breadcrumbs?|nav|navbar|menu|social|subscribe|recommend|recommended|more-?stories|read-?more|byline|author|popular|trending|toc)(?:$|[\s_-])/

/** Strong content-container hints: schema.org article bodies and common CMS body classes. */
export const CONTENT_CONTAINER =
  /(?:^|\s)(?:article-?body|articlebody|article__body|article-content|article__content|entry-content|post-content|post-body|post__content|postbody|story-body|story-content|c-entry-content|td-post-content|blog-post-content|rich-text|markdown-body|theme-doc-markdown|main-content|page-content|single-content|content-body|body-copy|news-content|article-text|text-content)(?:$|\s)/

/** Comments on articles (dropped) vs posts on forums (kept); the page type decides. */
export const COMMENTS = /(?:^|[\s_-])(?:comments?|commentlist|comment-list|disqus|replies|respond|discussion)(?:$|[\s_-])/

export const HIDDEN_STYLE = /(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)/i

/** Tab panels, accordion and toggle bodies: hidden until clicked, but part of the content. */
const DISCLOSED = /(?:^|[\s_-])(?:toggle|tab-?pane|tabpanel|tab-?content|accordion|collapse|panel)(?:$|[\s_-])/

/** Elements the page hides from readers (not counting tabs and accordions, which readers open). */
export const isHidden = (element: Element): boolean => {
  if (!isMarkedHidden(element)) return false
  const role = attr(element, "role")
  if (role === "tabpanel") return false
  // a hidden panel labelled by its toggle (accordions, FAQs) opens on click
  if ((role === "region" || attr(element, "ariaLabelledBy") !== undefined)) return false
  const s = classAndId(element)
  return s === "" || !DISCLOSED.test(s)
}

export const isMarkedHidden = (element: Element): boolean => {
  const props = element.properties
  if (props.hidden !== undefined && props.hidden !== false && props.hidden !== null) return true
  if (attr(element, "ariaHidden") === "true") return true
  const style = attr(element, "style")
  return style !== undefined && HIDDEN_STYLE.test(style)
}

/** ±25 per signal, as in the classic readability weighting of class and id. */
export const classWeight = (element: Element): number => {
  const s = classAndId(element)
  if (s === "") return 0
  let weight = 0
  if (NEGATIVE.test(s)) weight -= 25
  if (POSITIVE.test(s)) weight += 25
  return weight
}

export const isAlwaysBoilerplate = (element: Element): boolean => {
  const s = classAndId(element)
  if (s !== "" && ALWAYS_BOILERPLATE.test(s)) return true
  const label = attr(element, "ariaLabel")
  return label !== undefined && /cookie|consent|privacy preference/i.test(label)
}

export const isUnlikely = (element: Element, pattern: RegExp = UNLIKELY, rescue = true): boolean => {
  const s = classAndId(element)
  const role = attr(element, "role")
  if (role !== undefined && CHROME_ROLES.has(role)) return true
  if (s === "") return false
  if (!pattern.test(s)) return false
  if (!rescue || STRONG_CHROME.test(s)) return true
  // a content word rescues, unless it names a part of a comment (`comments-body`, `comment-content`)
  for (const token of s.split(" ")) if (MAYBE.test(token) && !COMMENTS.test(token)) return false
  return true
}
