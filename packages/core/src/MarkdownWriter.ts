/**
 * The markdown stage: joins the blocks of each page into the document markdown, page by page,
 * recording for every block the `[start, end)` span of what it added, so that
 * `markdown.slice(start, end) === content` holds for every block whose span is not null.
 *
 * It is incremental so that a document can be streamed: `push` one page at a time and get back
 * the chunk of markdown that page appended, its `data.blocks` page object and its `data.pages` entry.
 */
import { blockType, isFurniture, type Block, type BlockType, type Page, type PageStatus } from "./Document.ts"

/** A block as the contract's `data.blocks[].items[]` writes it. */
export interface OutputBlock {
  readonly id: string
  readonly type: BlockType
  readonly label: string | null
  readonly content: string
  readonly bbox: readonly [number, number, number, number] | null
  readonly markdownSpan: readonly [number, number] | null
  readonly readingOrder: number
  readonly source: string | null
  readonly confidence: { readonly layout: number | null; readonly ocr: number | null }
}

/** The contract's `data.blocks[]` page object. */
export interface OutputBlockPage {
  readonly pageNumber: number
  readonly status: PageStatus
  readonly width: number | null
  readonly height: number | null
  readonly items: ReadonlyArray<OutputBlock>
}

/** The contract's `data.pages[]` entry. */
export interface OutputPage {
  readonly pageNumber: number
  readonly markdown: string
}

export interface PushResult {
  /** What this page appended to the document markdown (separators and page marker included). */
  readonly chunk: string
  readonly blockPage: OutputBlockPage
  readonly page: OutputPage
}

export interface WriterOptions {
  /** The spec's page markers: blank line, `---`, blank line, `<!-- page N -->`, blank line; none before page 1. */
  readonly pageMarkers?: boolean
}

/** The separator written between two consecutive body blocks. */
const separator = (previous: Block | undefined, next: Block): string => {
  if (previous === undefined) return ""
  if (previous.kind === "list_item" && next.kind === "list_item") return "\n"
  return "\n\n"
}

/** The page marker the spec describes, written before the first body block of page `n` (never page 1's). */
export const pageMarker = (pageNumber: number): string => `\n\n---\n\n<!-- page ${pageNumber} -->\n\n`

export class MarkdownWriter {
  private readonly parts: Array<string> = []
  private length = 0
  private previous: Block | undefined = undefined
  private readonly pageMarkers: boolean

  constructor(options: WriterOptions = {}) {
    this.pageMarkers = options.pageMarkers ?? false
  }

  /** The markdown written so far. */
  get markdown(): string {
    if (this.parts.length > 1) {
      const joined = this.parts.join("")
      this.parts.length = 0
      this.parts.push(joined)
    }
    return this.parts[0] ?? ""
  }

  push(page: Page): PushResult {
    const chunkParts: Array<string> = []
    const pageParts: Array<string> = []
    const items: Array<OutputBlock> = []
    let pagePrevious: Block | undefined = undefined
    let markerPending = this.pageMarkers && this.length > 0
    page.blocks.forEach((block, index) => {
      let span: readonly [number, number] | null = null
      if (!isFurniture(block.kind) && block.content.length > 0) {
        let sep: string
        if (markerPending) {
          sep = pageMarker(page.pageNumber)
          markerPending = false
        } else {
          sep = separator(this.previous, block)
        }
        const start = this.length + sep.length
        chunkParts.push(sep, block.content)
        this.length = start + block.content.length
        span = [start, this.length]
        pageParts.push(separator(pagePrevious, block), block.content)
        pagePrevious = block
        this.previous = block
      }
      items.push({
        id: `p${page.pageNumber}.b${index}`,
        type: blockType(block.kind),
        label: block.label ?? block.kind,
        content: block.content,
        bbox: block.bbox,
        markdownSpan: span,
        readingOrder: index,
        source: block.source,
        confidence: block.confidence
      })
    })
    const chunk = chunkParts.join("")
    this.parts.push(chunk)
    return {
      chunk,
      blockPage: { pageNumber: page.pageNumber, status: page.status, width: page.width, height: page.height, items },
      page: { pageNumber: page.pageNumber, markdown: pageParts.join("") }
    }
  }
}

/** Writes a whole document at once. */
export const writeMarkdown = (pages: Iterable<Page>, options: WriterOptions = {}) => {
  const writer = new MarkdownWriter(options)
  const blocks: Array<OutputBlockPage> = []
  const outPages: Array<OutputPage> = []
  for (const page of pages) {
    const result = writer.push(page)
    blocks.push(result.blockPage)
    outPages.push(result.page)
  }
  return { markdown: writer.markdown, blocks, pages: outPages }
}
