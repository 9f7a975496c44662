/**
 * List nesting, decided in reading order: a list item indented past the previous item opens a
 * level below it, one back at an earlier item's indentation returns to that level, and any other
 * block ends the list. Each level is indented by the width of its parent's marker, so that the
 * markdown nests (four spaces under "10.", two under "-").
 */
import type { LayoutBlock } from "./LayoutBlock.ts"
import { LIST_MARKER } from "./Paragraphs.ts"

const markerWidth = (block: LayoutBlock): number => {
  const text = block.lines[0]?.text ?? ""
  const marker = LIST_MARKER.exec(text)?.[0].trim() ?? ""
  return /^\d{1,3}\.$/.test(marker) ? marker.length + 1 : 2
}

/** Sets `depth` and `indent` on the list items of `ordered` (blocks in reading order). */
export const nestLists = (ordered: ReadonlyArray<LayoutBlock>): void => {
  let stack: Array<{ x0: number; top: number; indent: number; width: number }> = []
  for (const block of ordered) {
    if (block.kind !== "list_item") {
      if (block.kind !== "page_header" && block.kind !== "page_footer" && block.kind !== "page_number") stack = []
      continue
    }
    const tolerance = 0.8 * block.size
    // A jump up the page or far to the right is a new column: the list starts afresh there.
    const last = stack[stack.length - 1]
    if (last !== undefined && (block.top < last.top - block.size || block.x0 > last.x0 + 8 * block.size)) stack = []
    while (stack.length > 0 && block.x0 < stack[stack.length - 1].x0 - tolerance) stack.pop()
    const top = stack[stack.length - 1]
    if (top !== undefined && Math.abs(block.x0 - top.x0) <= tolerance) {
      stack[stack.length - 1] = { x0: top.x0, top: block.top, indent: top.indent, width: markerWidth(block) }
    } else {
      const indent = top === undefined ? 0 : top.indent + top.width
      stack.push({ x0: block.x0, top: block.top, indent, width: markerWidth(block) })
    }
    block.depth = stack.length - 1
    block.indent = stack[stack.length - 1].indent
  }
}
