/**
 * Every office reader's blocks against core's writer: a block that carries structure has exactly
 * the fragment core writes from it, and every span slices back to its block's content (with and
 * without page markers), on the generated document of each format.
 */
import { describe, expect, it } from "vitest"
import { blockMarkdown, writeMarkdown, type Block, type DocumentFormat } from "@strata/core"
import { buildBinaryWorkbook, buildCsv, buildDocx, buildEpub, buildOdp, buildOds, buildOdt, buildPptx, buildPptxChart, buildRtf, buildXlsx } from "./fixtures/Builders.ts"
import { readDocument } from "./fixtures/ReadDocument.ts"

const cases: Array<{ name: string; format: DocumentFormat; build: () => Uint8Array | Promise<Uint8Array> }> = [
  { name: "docx", format: "docx", build: buildDocx },
  { name: "xlsx", format: "xlsx", build: buildXlsx },
  { name: "xls", format: "xls", build: () => buildBinaryWorkbook("biff8") },
  { name: "pptx", format: "pptx", build: buildPptx },
  { name: "pptx chart", format: "pptx", build: buildPptxChart },
  { name: "odt", format: "odt", build: buildOdt },
  { name: "ods", format: "ods", build: buildOds },
  { name: "odp", format: "odp", build: buildOdp },
  { name: "epub", format: "epub", build: buildEpub },
  { name: "rtf", format: "rtf", build: buildRtf },
  { name: "csv", format: "csv", build: buildCsv }
]

const structured = (block: Block): boolean =>
  block.text !== undefined || block.heading !== undefined || block.list !== undefined || block.table !== undefined ||
  block.image !== undefined || block.code !== undefined || block.formula !== undefined || block.quote !== undefined

describe("office blocks and spans", () => {
  for (const c of cases) {
    it(c.name, async () => {
      const out = await readDocument(await c.build(), c.format)
      for (const page of out.pages) for (const block of page.blocks) if (structured(block)) expect(block.content).toBe(blockMarkdown(block))
      for (const pageMarkers of [false, true]) {
        const written = writeMarkdown(out.pages, { pageMarkers })
        for (const page of written.blocks) for (const block of page.items) {
          if (block.markdownSpan !== null) expect(written.markdown.slice(block.markdownSpan[0], block.markdownSpan[1])).toBe(block.content)
        }
      }
    })
  }
})
