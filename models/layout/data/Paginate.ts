/**
 * Runs in the page (Playwright's `page.evaluate`, so it is self-contained): lays a
 * `DocumentSpec` out into fixed page boxes, one `div.pg` per PDF page, and returns every
 * labelled element's box on its page in PDF points.
 *
 * Pagination is ours, not the print engine's: DOM rects are not available for print fragments,
 * so each page is a box of the paper's size that prints as exactly one PDF page, and a block
 * goes to the next column or page when it overflows. A paragraph or list that does not fit is
 * split (by words, by items) so that pages end full, as in real documents; a table, figure or
 * code block larger than an empty column is left out.
 */
import type { DocumentSpec } from "./Documents.ts"

export interface LabelledBox {
  readonly label: string
  /** [x0, top, x1, bottom] in PDF points from the page's top-left corner. */
  readonly box: readonly [number, number, number, number]
  readonly text: string
}

export interface LaidOut {
  readonly pages: ReadonlyArray<ReadonlyArray<LabelledBox>>
  /** Flow blocks left out because they could not fit a column. */
  readonly dropped: number
}

export const paginate = (spec: DocumentSpec): LaidOut => {
  const { margin } = spec
  const root = document.body
  root.innerHTML = ""
  let dropped = 0
  // Raster pictures: drawn on a canvas from the spec's shapes, so the PDF holds an image.
  const rasterise = (scope: ParentNode) => {
    for (const img of Array.from(scope.querySelectorAll<HTMLImageElement>("img[data-shapes]"))) {
      const canvas = document.createElement("canvas")
      canvas.width = img.width
      canvas.height = img.height
      const g = canvas.getContext("2d")!
      g.fillStyle = img.dataset.bg ?? "#ccc"
      g.fillRect(0, 0, img.width, img.height)
      for (const s of (img.dataset.shapes ?? "").split(";")) {
        const [x, y, r, ...fill] = s.split(",")
        g.fillStyle = fill.join(",")
        g.beginPath()
        g.arc(Number(x), Number(y), Number(r), 0, Math.PI * 2)
        g.fill()
      }
      img.src = canvas.toDataURL("image/png")
      img.removeAttribute("data-shapes")
    }
  }
  const html = (s: string) => {
    const t = document.createElement("template")
    t.innerHTML = s
    rasterise(t.content)
    return Array.from(t.content.children) as Array<HTMLElement>
  }
  const pages: Array<HTMLElement> = []
  const newPage = () => {
    const index = pages.length
    const pg = document.createElement("div")
    pg.className = "pg"
    if (spec.header !== null) pg.insertAdjacentHTML("beforeend", `<div class="hd">${spec.header}</div>`)
    if (spec.footer !== null) pg.insertAdjacentHTML("beforeend", `<div class="ft">${spec.footer}</div>`)
    const body = document.createElement("div")
    body.style.cssText = `position:absolute;top:${margin.top}px;left:${margin.left}px;right:${margin.right}px;bottom:${margin.bottom}px;display:flex;flex-direction:column`
    pg.append(body)
    root.append(pg)
    if (index === 0 && spec.front.length > 0) {
      const front = document.createElement("div")
      front.style.cssText = "flex:none"
      front.append(...html(spec.front.join("")))
      body.append(front)
    }
    const row = document.createElement("div")
    row.style.cssText = `flex:1;min-height:0;display:flex;gap:${spec.columnGap}px`
    body.append(row)
    const notes = spec.footnotes[index] ?? []
    if (notes.length > 0) {
      const fns = document.createElement("div")
      fns.className = "fns"
      fns.style.cssText = "flex:none;margin-top:6px"
      fns.append(...html(notes.join("")))
      body.append(fns)
    }
    pages.push(pg)
    return Array.from({ length: spec.columns }, () => {
      const col = document.createElement("div")
      col.className = "col"
      col.style.cssText = "flex:1;min-width:0;overflow:hidden;position:relative"
      row.append(col)
      return col
    })
  }
  let columns = newPage()
  let c = 0
  const fits = (col: HTMLElement) => col.scrollHeight <= col.clientHeight + 0.5
  const next = () => {
    c++
    if (c >= columns.length) { columns = newPage(); c = 0 }
  }
  const queue = spec.flow.flatMap((s) => html(s))
  while (queue.length > 0) {
    const el = queue.shift()!
    const col = columns[c]
    col.append(el)
    if (fits(col)) continue
    el.remove()
    const empty = col.childElementCount === 0
    if (el.tagName === "P" && el.dataset.label === "text" && el.children.length === 0) {
      // Split at the last word that fits: the rest starts the next column.
      const words = (el.textContent ?? "").split(" ")
      let lo = 0, hi = words.length
      const part = el.cloneNode() as HTMLElement
      col.append(part)
      while (lo < hi) {
        const mid = Math.ceil((lo + hi) / 2)
        part.textContent = words.slice(0, mid).join(" ")
        if (fits(col)) lo = mid
        else hi = mid - 1
      }
      if (lo >= 4) {
        part.textContent = words.slice(0, lo).join(" ")
        const rest = el.cloneNode() as HTMLElement
        rest.textContent = words.slice(lo).join(" ")
        rest.style.textIndent = "0"
        queue.unshift(rest)
      } else {
        part.remove()
        queue.unshift(el)
      }
      next()
      continue
    }
    if ((el.tagName === "UL" || el.tagName === "OL") && el.children.length > 1) {
      const items = Array.from(el.children)
      const head = el.cloneNode() as HTMLElement
      col.append(head)
      let n = 0
      for (const item of items) {
        head.append(item)
        if (!fits(col)) { item.remove(); break }
        n++
      }
      if (n === 0) head.remove()
      const rest = el.cloneNode() as HTMLElement
      rest.append(...items.slice(n))
      if (rest.children.length > 0) queue.unshift(rest)
      if (n > 0 || !empty) { next(); continue }
    }
    if (empty) { dropped++; continue }
    queue.unshift(el)
    next()
  }
  // Trailing empty pages (a split that moved nothing) are removed; then page numbers are filled.
  while (pages.length > 1 && pages[pages.length - 1].querySelectorAll("[data-label]:not(.hd *):not(.ft *)").length === 0) pages.pop()!.remove()
  pages.forEach((pg, i) => {
    for (const el of Array.from(pg.querySelectorAll<HTMLElement>(".hd span, .ft span"))) {
      el.textContent = (el.textContent ?? "").replace("{page}", String(i + 1)).replace("{pages}", String(pages.length))
    }
  })
  const TEXTUAL = new Set(["title", "section_header", "text", "list_item", "caption", "formula", "code", "footnote", "page_header", "page_footer", "page_number"])
  const pt = 72 / 96
  return {
    dropped,
    pages: pages.map((pg) => {
      const origin = pg.getBoundingClientRect()
      const out: Array<LabelledBox> = []
      for (const el of Array.from(pg.querySelectorAll<HTMLElement>("[data-label]"))) {
        const label = el.dataset.label!
        let rects: Array<DOMRect>
        if (TEXTUAL.has(label)) {
          // The box of the element's own glyphs (a heading's box is its text, not the column's width);
          // a list item's nested list is its own item.
          const range = document.createRange()
          range.selectNodeContents(el)
          const nested = el.querySelector("ul, ol")
          if (nested !== null) range.setEndBefore(nested)
          rects = Array.from(range.getClientRects()).filter((r) => r.width > 0.5 && r.height > 0.5)
        } else rects = [el.getBoundingClientRect()]
        const col = el.closest<HTMLElement>(".col")
        const clip = col?.getBoundingClientRect()
        if (clip !== undefined && clip !== null) rects = rects.filter((r) => r.top < clip.bottom && r.bottom > clip.top)
        if (rects.length === 0) continue
        const x0 = Math.min(...rects.map((r) => r.left)), x1 = Math.max(...rects.map((r) => r.right))
        const top = Math.min(...rects.map((r) => r.top)), bottom = Math.max(...rects.map((r) => r.bottom))
        const round = (v: number) => Math.round(v * pt * 100) / 100
        out.push({
          label,
          box: [round(x0 - origin.left), round(top - origin.top), round(x1 - origin.left), round(bottom - origin.top)],
          text: (el.querySelector("ul, ol") === null ? el.textContent ?? "" : Array.from(el.childNodes).filter((n) => !(n instanceof HTMLElement && /^(UL|OL)$/.test(n.tagName))).map((n) => n.textContent).join("")).replace(/\s+/g, " ").trim().slice(0, 200)
        })
      }
      return out
    })
  }
}
