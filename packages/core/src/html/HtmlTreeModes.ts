/**
 * The tree builder behind `parseHtml`: htmlparser2's tokens (open tag, close tag, text) become a
 * hast tree, placed as the HTML5 tree-construction algorithm places them for the malformed
 * markup real pages carry, where htmlparser2 alone would only nest what it is given:
 * - body content in the head (text, `<div>`, `<p>`, `<img>` before `<body>`) closes the head and
 *   opens an implied `<body>`, as the "in head" and "after head" insertion modes do. Left under
 *   `<head>`, cleaning dropped it: whole news articles came back empty that way;
 * - a second `<html>`, `<head>` or `<body>` start tag is not an element: `<html>`/`<body>` lend
 *   their attributes to the first, a late `<head>` is ignored;
 * - `</body>` and `</html>` do not close the body: what follows them (a common trailer of
 *   scripts and late widgets, sometimes the article's end) still goes into the body;
 * - content before `<html>` moves into the body when `<html>` arrives;
 * - text directly inside a table (not in a cell) is foster-parented to just before the table,
 *   so text order matches a browser's. Stray elements in a table (a `<div>` between rows) stay
 *   where they are: fostering them too moved whole product-detail blocks out of their table on
 *   one WCXB page and cost its F1 0.21, for no text gained (only their order differs, and only
 *   when cells come before them).
 * Raw text (`<script>`, `<style>`, `<title>`, `<textarea>`) and unterminated attribute quotes
 * are the tokenizer's; htmlparser2 follows the spec there (an unterminated quote runs to the
 * next quote, and at the end of input the tag is dropped). Its implied end tags (`<p>` before
 * a block, `<li>` after `<li>`) match the spec's for text; the adoption agency's re-opened
 * formatting elements are not rebuilt (the text is the same, only its emphasis differs).
 * A fragment with no `<html>`, `<head>` or `<body>` stays a fragment: no implied elements.
 *
 * htmlparser2 reports an open tag and a close tag for every element it opens, in stack order;
 * `records` mirrors its stack, holding our element (or null where none was made), so a close
 * pops the right one even when our tree placed the element elsewhere.
 */
import type { Element, ElementContent, Properties, Root, RootContent } from "hast"
import { find, html as htmlSchema, svg as svgSchema } from "property-information"
import type { Info, Schema } from "property-information"

type Parent = Root | Element

/**
 * Nesting deeper than this is flattened. Browsers cap their trees too (Blink at 512), and every
 * later stage walks the tree recursively: 20,000 nested `<div>`s must not overflow the stack.
 */
const MAX_DEPTH = 400

/** Parses one attribute value as hast does (see hastscript): token lists, numbers, booleans. */
const propertyValue = (info: Info, value: string): Properties[string] => {
  if (info.spaceSeparated) return splitTokens(value, /[ \t\n\r\f]+/)
  if (info.commaSeparated) return value.split(",").map((part) => part.trim()).filter((part) => part !== "")
  if (info.commaOrSpaceSeparated) return splitTokens(value, /[ \t\n\r\f,]+/)
  if (info.number && value !== "" && !Number.isNaN(Number(value))) return Number(value)
  if ((info.boolean || info.overloadedBoolean) && (value === "" || value.toLowerCase() === info.attribute.toLowerCase())) {
    return true
  }
  return value
}

const splitTokens = (value: string, separator: RegExp): Array<string> => {
  // Most class and rel values are one token: skip the regex split.
  if (!/[ \t\n\r\f,]/.test(value)) return value === "" ? [] : [value]
  const out: Array<string> = []
  for (const token of value.split(separator)) if (token !== "") out.push(token)
  return out
}

/** `find` normalises names with regexes; pages repeat the same few attribute names, so memoise. */
const infoCache = new Map<string, Info>()
const svgInfoCache = new Map<string, Info>()
const lookup = (schema: Schema, cache: Map<string, Info>, name: string): Info => {
  let info = cache.get(name)
  if (info === undefined) {
    info = find(schema, name)
    cache.set(name, info)
  }
  return info
}

const toProperties = (attribs: Record<string, string>, inSvg: boolean): Properties => {
  const properties: Properties = {}
  for (const raw in attribs) {
    const name = inSvg ? raw : raw.toLowerCase()
    const info = inSvg ? lookup(svgSchema, svgInfoCache, name) : lookup(htmlSchema, infoCache, name)
    // First attribute wins, as in browsers.
    if (info.property in properties) continue
    properties[info.property] = propertyValue(info, attribs[raw] ?? "")
  }
  return properties
}

/** htmlparser2 may report one text run in several chunks: keep one hast text node per run. */
const pushText = (parent: Parent, value: string): void => {
  const children = parent.children
  const last = children[children.length - 1]
  if (last !== undefined && last.type === "text") last.value += value
  else children.push({ type: "text", value })
}


/** Elements that belong in `<head>`: they do not end it (the "in head" insertion mode). */
const HEAD_CONTENT = new Set(["base", "basefont", "bgsound", "link", "meta", "noframes", "noscript", "script", "style", "template", "title"])
/** Where loose text is foster-parented: table parts that hold no text of their own. */
const TABLE_CONTEXT = new Set(["table", "tbody", "thead", "tfoot", "tr"])
const NOT_WHITESPACE = /[^ \t\n\r\f]/

const element = (tagName: string, properties: Properties): Element => ({ type: "element", tagName, properties, children: [] })

export class TreeModes {
  private readonly stack: Array<Parent>
  /** One entry per element htmlparser2 holds open: ours, or null where the tag made none. */
  private readonly records: Array<Element | null> = []
  private readonly recordSvg: Array<boolean> = []
  private svgDepth = 0
  private html: Element | undefined
  private head: Element | undefined
  private body: Element | undefined
  /** Body content seen at the top level before any `<html>`, `<head>` or `<body>`. */
  private rootContent = false

  private readonly root: Root

  constructor(root: Root) {
    this.root = root
    this.stack = [root]
  }

  private get top(): Parent {
    return this.stack[this.stack.length - 1] as Parent
  }

  /** Between `<html>`/`<head>` and the body: where body content implies `<body>`. */
  private get beforeBody(): boolean {
    const top = this.top
    return this.body === undefined && (top === this.head || top === this.html || (top === this.root && this.head !== undefined))
  }

  private enterBody(): void {
    if (this.top === this.head) this.stack.pop()
    const body = element("body", {})
    this.append(body)
    this.body = body
    this.stack.push(body)
  }

  private append(child: ElementContent): void {
    ;(this.top.children as Array<RootContent | ElementContent>).push(child)
  }

  /** Moves what the top level holds so far into `body` (content before `<html>`/`<body>`). */
  private adoptRootContent(body: Element): void {
    body.children.push(...(this.root.children.filter((child) => child.type !== "doctype") as Array<ElementContent>))
    this.root.children = this.root.children.filter((child) => child.type === "doctype")
  }

  private record(el: Element | null, svg: boolean): void {
    this.records.push(el)
    this.recordSvg.push(svg)
  }

  private mergeAttributes(into: Element | undefined, attribs: Record<string, string>): void {
    if (into === undefined) return
    const extra = toProperties(attribs, false)
    for (const key in extra) if (!(key in into.properties)) into.properties[key] = extra[key] as Properties[string]
  }

  /** The table whose part is on top, when the top is a table part (foster-parenting context). */
  private fosterTarget(): { parent: Parent; before: Element } | undefined {
    const top = this.top
    if (top.type !== "element" || !TABLE_CONTEXT.has(top.tagName)) return undefined
    // the outermost table of the run of table parts on top: htmlparser2 nests a `<table>` met
    // in a table (the spec closes the first), and text fostered between the two would be
    // fostered again, elsewhere, when the tree is written out and parsed back
    let target: { parent: Parent; before: Element } | undefined
    for (let i = this.stack.length - 1; i > 0; i--) {
      const node = this.stack[i] as Element
      if (!TABLE_CONTEXT.has(node.tagName)) break
      if (node.tagName === "table") target = { parent: this.stack[i - 1] as Parent, before: node }
    }
    return target
  }

  private insertBefore(target: { parent: Parent; before: Element }, child: ElementContent): void {
    const children = target.parent.children as Array<RootContent | ElementContent>
    const at = children.lastIndexOf(target.before)
    const previous = children[at - 1]
    if (child.type === "text" && previous !== undefined && previous.type === "text") previous.value += child.value
    else children.splice(at < 0 ? children.length : at, 0, child)
  }

  open(name: string, attribs: Record<string, string>): void {
    if (this.stack.length > MAX_DEPTH) {
      // Too deep: the element is dropped, its content flows into the deepest kept parent.
      this.record(null, false)
      return
    }
    if (this.svgDepth === 0) {
      if (name === "html") return this.openHtml(attribs)
      if (name === "head") return this.openHead(attribs)
      if (name === "body") return this.openBody(attribs)
      if (!HEAD_CONTENT.has(name)) {
        if (this.beforeBody) this.enterBody()
        else if (this.top === this.root && this.html === undefined) this.rootContent = true
      }
    }
    const inSvg = this.svgDepth > 0 || name === "svg" || name === "math"
    if (inSvg) this.svgDepth++
    const el = element(name, toProperties(attribs, inSvg))
    this.append(el)
    this.stack.push(el)
    this.record(el, inSvg)
  }

  private openHtml(attribs: Record<string, string>): void {
    if (this.html !== undefined || this.head !== undefined || this.body !== undefined) {
      this.mergeAttributes(this.html, attribs)
      return this.record(null, false)
    }
    const html = element("html", toProperties(attribs, false))
    this.html = html
    if (this.rootContent) {
      // Text or elements before `<html>`: the spec already opened an implied body for them.
      const body = element("body", {})
      this.adoptRootContent(body)
      html.children.push(body)
      this.root.children.push(html)
      this.body = body
      // The elements still open (`<div><i>` before the tag) now stand in the body and stay open:
      // what follows goes on inside them, as in the spec's tree, where `<html>` here changes nothing.
      const open = this.stack.slice(1)
      this.stack.length = 1
      this.stack.push(html, body, ...open)
      return this.record(null, false)
    }
    this.append(html)
    this.stack.push(html)
    this.record(html, false)
  }

  private openHead(attribs: Record<string, string>): void {
    const top = this.top
    if (this.head !== undefined || this.body !== undefined || this.rootContent || (top !== this.root && top !== this.html)) {
      return this.record(null, false)
    }
    const head = element("head", toProperties(attribs, false))
    this.head = head
    this.append(head)
    this.stack.push(head)
    this.record(head, false)
  }

  private openBody(attribs: Record<string, string>): void {
    if (this.body !== undefined) {
      this.mergeAttributes(this.body, attribs)
      return this.record(null, false)
    }
    if (this.top === this.head) this.stack.pop()
    const body = element("body", toProperties(attribs, false))
    if (this.top === this.root && this.rootContent) this.adoptRootContent(body)
    this.append(body)
    this.body = body
    this.stack.push(body)
    this.record(body, false)
  }

  close(): void {
    const el = this.records.pop()
    if (this.recordSvg.pop() === true) this.svgDepth--
    // `</html>` and `</body>` leave the body open: content after them still belongs to it.
    if (el === undefined || el === null || el === this.html || el === this.body) return
    const stack = this.stack
    if (stack[stack.length - 1] === el) {
      stack.pop()
      return
    }
    const at = stack.lastIndexOf(el)
    if (at > 0) stack.length = at
  }

  text(data: string): void {
    if (this.svgDepth === 0 && NOT_WHITESPACE.test(data)) {
      if (this.beforeBody) this.enterBody()
      else if (this.top === this.root && this.html === undefined) this.rootContent = true
      const foster = this.fosterTarget()
      if (foster !== undefined) return this.insertBefore(foster, { type: "text", value: data })
    }
    pushText(this.top, data)
  }
}
