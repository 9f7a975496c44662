/**
 * The HTML writer of documents: a document's pages of blocks in, its `html` and `links` out,
 * written from each block's structure (heading level, list depth and ordinal, table grid with
 * spans, image, code language, formula, note, quote) and inline text, the same structure
 * `BlockMarkdown.ts` writes markdown from. Nothing is written to markdown and parsed back.
 *
 * A block whose structure no longer describes its `content` (a stage replaced the content with
 * `withContent`, or a reader still writes markdown itself) is converted from its markdown as
 * before: consecutive such blocks are joined as the markdown writer joins them and converted
 * together, so that their lists and tables read as they did.
 *
 * Body blocks only, as in the markdown: furniture is left out. With page markers, a page break is
 * `<hr>` and the marker's comment, as the markdown's `---` and `<!-- page N -->` rendered.
 */
import { isFurniture, type Block, type ListInfo, type Page, type TableInfo } from "../Document.ts"
import { markdownLinks, markdownToHtml } from "../MarkdownHtml.ts"
import { blockMarkdown } from "./BlockMarkdown.ts"
import { escapeHtml, escapeHtmlAttribute } from "./HtmlEscape.ts"
import { writeHtmlTable } from "./TableWriter.ts"
import { type InlineContext, inlineHtml, inlinePlain, noteId } from "./InlineHtml.ts"

export interface HtmlWriterOptions {
  /** The page markers the markdown has: a page break is written as `<hr>` and `<!-- page N -->`. */
  readonly pageMarkers?: boolean
}

export interface WrittenHtml {
  readonly html: string
  /** Absolute http(s) and mailto links, without fragment, deduplicated, in document order. */
  readonly links: Array<string>
}

const hasStructure = (block: Block): boolean =>
  block.text !== undefined || block.heading !== undefined || block.list !== undefined || block.table !== undefined ||
  block.image !== undefined || block.code !== undefined || block.formula !== undefined || block.note !== undefined ||
  block.quote !== undefined

/** The block's structure still writes exactly its content (no stage replaced it since). */
const describesContent = (block: Block): boolean => hasStructure(block) && blockMarkdown(block) === block.content

/** The list item a block is, when the markdown writer writes it as one (the other kinds of structure come first). */
const listOf = (block: Block): ListInfo | undefined =>
  block.table === undefined && block.image === undefined && block.code === undefined && block.formula === undefined &&
    block.note === undefined && block.heading === undefined
    ? block.list
    : undefined

/** Markdown's separator between consecutive blocks (`MarkdownWriter`), for blocks converted from their markdown. */
const separator = (previous: Block | undefined, next: Block): string =>
  previous === undefined ? "" : previous.kind === "list_item" && next.kind === "list_item" ? "\n" : "\n\n"

/** A table block: its grid through the table writer, each cell's text (inline markdown, or plain) as HTML, line breaks as `<br>`. */
const tableHtml = (table: TableInfo, context: InlineContext): string => {
  const plain = table.cellText === "plain"
  return writeHtmlTable(table, {
    headerRows: table.headerRows,
    cell: (text) =>
      text.split(/[ \t]*\n[ \t]*/).map((line) => (plain ? escapeHtml(line.replace(/\s+/g, " ").trim()) : inlineHtml(line, context))).join("<br>")
  })
}

/** Text as paragraphs: a blank line inside it starts another, as it would in the markdown. */
const paragraphs = (text: string, context: InlineContext): string =>
  text.split(/\n[ \t]*\n/).filter((part) => part.trim().length > 0).map((part) => `<p>${inlineHtml(part, context)}</p>`).join("\n")

/** The element of a block that is not a list item. */
const blockHtml = (block: Block, context: InlineContext, noteIds: Set<string>): string => {
  const text = block.text ?? ""
  if (block.table !== undefined) return tableHtml(block.table, context)
  if (block.image !== undefined) {
    const { src, alt } = block.image
    if (src.length === 0 && alt.length === 0) return "<!-- image -->"
    return `<p><img src="${escapeHtmlAttribute(src)}" alt="${escapeHtmlAttribute(inlinePlain(alt))}"></p>`
  }
  if (block.code !== undefined) {
    if (block.code.inline === true) return `<p><code>${escapeHtml(text.trim())}</code></p>`
    const language = block.code.language === null || block.code.language.length === 0 ? "" : ` class="language-${escapeHtmlAttribute(block.code.language)}"`
    return `<pre><code${language}>${escapeHtml(text)}\n</code></pre>`
  }
  if (block.formula !== undefined) {
    const { source, notation, display } = block.formula
    if (notation === "text") return `<p>${escapeHtml(source.trim())}</p>`
    // remark-math's elements, which KaTeX and MathJax pick up.
    return display
      ? `<pre><code class="language-math math-display">${escapeHtml(source)}</code></pre>`
      : `<p><code class="language-math math-inline">${escapeHtml(source)}</code></p>`
  }
  if (block.note !== undefined) {
    const id = noteId(block.note.label)
    const attribute = noteIds.has(id) ? "" : ` id="${escapeHtmlAttribute(id)}"`
    noteIds.add(id)
    return `<p class="footnote"${attribute}><sup>${escapeHtml(block.note.label)}</sup> ${inlineHtml(text, context)}</p>`
  }
  if (block.heading !== undefined) {
    const level = Math.max(1, Math.min(6, Math.floor(block.heading.level)))
    return `<h${level}>${inlineHtml(text.replace(/\n/g, " "), context)}</h${level}>`
  }
  if (block.quote === true) return `<blockquote>\n${paragraphs(text, context)}\n</blockquote>`
  return paragraphs(text, context)
}

interface OpenList {
  readonly depth: number
  readonly ordered: boolean
  /** Where its open item's line is in the output, so that an item with nothing under it closes on its own line. */
  item: number
}

/** Writes a whole document's HTML and links from its pages. */
export const writeHtml = (pages: Iterable<Page>, options: HtmlWriterOptions = {}): WrittenHtml => {
  const all = Array.isArray(pages) ? (pages as ReadonlyArray<Page>) : [...pages]
  const notes = new Set<string>()
  for (const page of all) for (const block of page.blocks) if (block.note !== undefined) notes.add(block.note.label)
  const links = new Set<string>()
  const context: InlineContext = { notes, links }
  const noteIds = new Set<string>()
  const out: Array<string> = []
  const lists: Array<OpenList> = []
  let run: Array<string> = []
  let runPrevious: Block | undefined = undefined
  let written = false

  const closeItem = (list: OpenList) => {
    if (list.item === out.length - 1) out[list.item] += "</li>"
    else out.push("</li>")
  }
  const closeList = () => {
    const list = lists.pop()
    if (list === undefined) return
    closeItem(list)
    out.push(list.ordered ? "</ol>" : "</ul>")
  }
  const closeLists = () => {
    while (lists.length > 0) closeList()
  }
  const flushRun = () => {
    if (run.length === 0) return
    const markdown = run.join("")
    out.push(markdownToHtml(markdown))
    for (const link of markdownLinks(markdown)) links.add(link)
    run = []
    runPrevious = undefined
  }
  const listItem = (info: ListInfo, text: string) => {
    const ordered = info.ordinal !== null
    while (lists.length > 0 && lists[lists.length - 1].depth > info.depth) closeList()
    const top = lists[lists.length - 1]
    if (info.continues === true) {
      out.push(paragraphs(text, context))
      return
    }
    if (top !== undefined && top.depth === info.depth && top.ordered !== ordered) closeList()
    let current = lists[lists.length - 1]
    if (current !== undefined && current.depth === info.depth) closeItem(current)
    else {
      const start = ordered && info.ordinal !== 1 ? ` start="${Math.floor(info.ordinal ?? 1)}"` : ""
      out.push(ordered ? `<ol${start}>` : "<ul>")
      lists.push((current = { depth: info.depth, ordered, item: -1 }))
    }
    current.item = out.length
    const body = inlineHtml(text, context)
    out.push(
      info.checked === undefined
        ? `<li>${body}`
        : `<li class="task-list-item"><input type="checkbox" disabled${info.checked ? " checked" : ""}> ${body}`
    )
  }

  for (const page of all) {
    let pageStarted = false
    for (const block of page.blocks) {
      if (isFurniture(block.kind) || block.content.length === 0) continue
      if (!pageStarted) {
        pageStarted = true
        if (options.pageMarkers === true && written) {
          flushRun()
          closeLists()
          out.push(`<hr>\n<!-- page ${page.pageNumber} -->`)
        }
      }
      written = true
      if (!describesContent(block)) {
        closeLists()
        run.push(separator(runPrevious, block), block.content)
        runPrevious = block
        continue
      }
      flushRun()
      const list = listOf(block)
      if (list !== undefined) listItem(list, block.text ?? "")
      else {
        closeLists()
        out.push(blockHtml(block, context, noteIds))
      }
    }
  }
  flushRun()
  closeLists()
  return { html: out.join("\n"), links: [...links] }
}
