/**
 * HTML parsing: builds a hast tree with htmlparser2's tokenizer and our own tree builder
 * (HtmlTreeModes.ts), which places content as the HTML5 tree-construction algorithm does on the
 * malformed markup pages carry: implied body for body content in the head, repeated and stray
 * `<html>`/`<head>`/`<body>`, content before `<html>` or after `</html>`, text loose in tables.
 * A property test holds its visible text equal to parse5's on generated malformed documents.
 *
 * Why not parse5: over the 679 WCXB dev pages (bench/html/parsers.ts, load average 3 on 2 cores)
 * parse5 alone took p50 8.4 ms, p95 47 ms, max 306 ms a page, and with the conversion to hast
 * (hast-util-from-html) p50 16 ms, p95 120 ms, max 660 ms; this parser p50 5.1 ms, p95 30 ms,
 * max 97 ms under the same load (quiet: p50 1.3 ms, p95 5 ms). parse5 always would spend the
 * whole page budget on parsing, and a fallback to it would need a detector for the cases the
 * tree builder misses, which the property test has not found (adoption-agency reconstruction and
 * stray elements in tables change emphasis and order, not which text is in the body).
 *
 * Properties follow hast conventions (`className` arrays, booleans, numbers, via
 * property-information), so hast-util-select and hast-util-to-html work on the tree.
 * Comments and doctypes are dropped: no stage needs them.
 */
import type { Root } from "hast"
import { Effect } from "effect"
import { Parser } from "htmlparser2"
import { TreeModes } from "./HtmlTreeModes.ts"

/**
 * XHTML (EPUB chapters, XML-declared pages) writes empty elements as `<a id="x"/>`; read as
 * HTML, such an element would stay open and adopt everything after it.
 */
const isXhtml = (html: string): boolean => {
  const head = html.slice(0, 2048)
  return /^\s*<\?xml/i.test(head) || /<html[^>]*\sxmlns\s*=\s*["']http:\/\/www\.w3\.org\/1999\/xhtml/i.test(head)
}

/**
 * Parses a whole page or a fragment. Never throws: malformed markup is repaired as HTML5 tree
 * construction repairs it where that decides which text is in the body (see HtmlTreeModes.ts),
 * and otherwise as htmlparser2 does (unclosed elements close at their parent's end tag or the input's end).
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
  const tree = new TreeModes(root)
  const xhtml = isXhtml(html)
  const parser = new Parser(
    {
      onopentag: (name, attribs) => tree.open(name, attribs),
      onclosetag: () => tree.close(),
      ontext: (data) => tree.text(data)
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
