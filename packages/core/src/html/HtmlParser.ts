/**
 * HTML parsing: builds a hast tree with htmlparser2's tokenizer instead of parse5.
 *
 * Why not hast-util-from-html: measured over a sample of the WCXB dev pages, parse5 took p50 8 ms
 * and p95 47 ms per page on its own (450 ms for the largest), a whole budget; htmlparser2 takes
 * p50 1.3 ms and p95 5 ms. The price is a forgiving parser instead of the HTML5 tree construction:
 * no implied `html`/`head`/`body`/`tbody` and no foster parenting. The later stages never rely on
 * those implied elements.
 *
 * Properties follow hast conventions (`className` arrays, booleans, numbers, via
 * property-information), so hast-util-select and hast-util-to-html work on the tree.
 * Comments and doctypes are dropped: no stage needs them.
 */
import type { Element, ElementContent, Properties, Root, RootContent } from "hast"
import { Effect } from "effect"
import { Parser } from "htmlparser2"
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

/**
 * XHTML (EPUB chapters, XML-declared pages) writes empty elements as `<a id="x"/>`; read as
 * HTML, such an element would stay open and adopt everything after it.
 */
const isXhtml = (html: string): boolean => {
  const head = html.slice(0, 2048)
  return /^\s*<\?xml/i.test(head) || /<html[^>]*\sxmlns\s*=\s*["']http:\/\/www\.w3\.org\/1999\/xhtml/i.test(head)
}

/**
 * Parses a whole page or a fragment. Never throws: malformed markup is repaired the way
 * htmlparser2 repairs it (unclosed elements close at their parent's end tag or the input's end).
 */
export const parseHtml = (html: string): Root => {
  const { parser, root, input } = treeBuilder(html)
  parser.end(input)
  return root
}

/** Input written to the parser at a time by `parseHtmlYielding`, at most and at least. */
const CHUNK_CHARS = 4096
const MIN_CHUNK_CHARS = 16
/** `parseHtmlYielding` gives the event loop a turn after this much parsing. */
const SLICE_MS = 15

/**
 * `parseHtml` that never holds the thread for long: the input is written in chunks, and after
 * every 15 ms of parsing the event loop gets a turn (setImmediate). Ordinary pages parse in one
 * slice and never yield. A chunk is 4 KB until the input turns expensive: htmlparser2 keeps its
 * open elements in an array it shifts and unshifts, and past ~100,000 open elements the array
 * lives where V8 cannot trim it in place, so each end tag copies it (~2.6 ms an end tag, 1.8 s for
 * one 4 KB chunk of `</div>`, measured). So each chunk's size follows the cost per character of
 * the last one, down to 16 characters, to keep a slice near 15 ms. Interruptible between
 * chunks, so a request's deadline stops it.
 */
export const parseHtmlYielding = (html: string): Effect.Effect<Root> =>
  Effect.suspend(() => {
    const { parser, root, input } = treeBuilder(html)
    let at = 0
    let chunk = CHUNK_CHARS
    let sliceStart = performance.now()
    const step = (): Effect.Effect<Root> => {
      while (at < input.length) {
        const before = performance.now()
        const end = Math.min(input.length, at + chunk)
        parser.write(input.slice(at, end))
        const took = performance.now() - before
        // Aim a chunk at a third of a slice, from what the last one cost per character.
        chunk = took <= 0 ? CHUNK_CHARS : Math.max(MIN_CHUNK_CHARS, Math.min(CHUNK_CHARS, Math.floor((end - at) * (SLICE_MS / 3) / took)))
        at = end
        if (performance.now() - sliceStart > SLICE_MS && at < input.length) {
          return Effect.andThen(nextTurn, () => {
            sliceStart = performance.now()
            return step()
          })
        }
      }
      parser.end()
      return Effect.succeed(root)
    }
    return step()
  })

const nextTurn = Effect.callback<void>((resume) => {
  const handle = setImmediate(() => resume(Effect.void))
  return Effect.sync(() => clearImmediate(handle))
})

const treeBuilder = (html: string) => {
  const root: Root = { type: "root", children: [] }
  const stack: Array<Parent> = [root]
  let svgDepth = 0
  let overflow = 0
  const xhtml = isXhtml(html)
  const parser = new Parser(
    {
      onopentag(name, attribs) {
        if (stack.length > MAX_DEPTH) {
          // Too deep: the element is dropped, its content flows into the deepest kept parent.
          overflow++
          return
        }
        const inSvg = svgDepth > 0 || name === "svg" || name === "math"
        if (inSvg) svgDepth++
        const element: Element = { type: "element", tagName: name, properties: toProperties(attribs, inSvg), children: [] }
        const parent = stack[stack.length - 1] as Parent
        ;(parent.children as Array<RootContent | ElementContent>).push(element)
        stack.push(element)
      },
      onclosetag() {
        if (overflow > 0) {
          overflow--
          return
        }
        if (stack.length > 1) stack.pop()
        if (svgDepth > 0) svgDepth--
      },
      ontext(data) {
        pushText(stack[stack.length - 1] as Parent, data)
      }
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: false, recognizeSelfClosing: xhtml, recognizeCDATA: xhtml }
  )
  return { parser, root, input: xhtml ? html : neutraliseCdata(html) }
}

/**
 * In HTML (not XHTML) a `<![CDATA[` in ordinary content is a bogus comment that ends at the
 * first `>`, as browsers read it; htmlparser2 would swallow everything up to a `]]>` that may
 * never come (whole forum pages vanished that way). Scripts and styles are raw text and are
 * skipped whole: there the first `>` after a commented-out CDATA opener is often the one that closes
 * `</script>`, and rewriting it swallowed the rest of the page into the script. Real CDATA
 * text inside inline SVG or MathML is lost with the rewrite (rare, and not page prose).
 */
const CDATA_OUTSIDE_RAW_TEXT = /<(script|style)\b[^>]*>[\s\S]*?<\/\1\s*>|<!\[CDATA\[[^>]*>/gi

const neutraliseCdata = (html: string): string =>
  html.includes("<![CDATA[") ? html.replace(CDATA_OUTSIDE_RAW_TEXT, (match) => (match.charCodeAt(1) === 33 ? "<!---->" : match)) : html
