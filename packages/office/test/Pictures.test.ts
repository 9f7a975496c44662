/**
 * Pictures stored in office documents, without an OCR engine: image headers and bitmaps are
 * read right, every container format points its picture blocks at the stored image, and the
 * readers warn (never OCR) where a page is a scan in disguise, in `fast` and when no engine is
 * installed, but not for a text-rich document with a small logo.
 */
import { describe, expect, it } from "vitest"
import { Effect, Stream } from "effect"
import { zipSync, strToU8 } from "fflate"
import sharp from "sharp"
import { DocumentReaders, type DocumentFormat, type Page, type ParseMode } from "@strata/core"
import { officeReaders } from "../src/index.ts"
import { readImageHeader } from "../src/ImageHeader.ts"
import { decodeBitmap } from "../src/Bitmap.ts"
import { docxWithPictures, logoPng, pptxWithPictures } from "./fixtures/PictureDocs.ts"

const readers = DocumentReaders.make(officeReaders)

const read = (bytes: Uint8Array, format: DocumentFormat, mode: ParseMode): Promise<Array<Page>> =>
  Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const result = yield* readers.read({ bytes, format, options: { mode, deadline: Date.now() + 30_000 } })
    return Array.from(yield* Stream.runCollect(result.pages))
  })))

const codes = (pages: ReadonlyArray<Page>): Array<string> => pages.flatMap((p) => (p.diagnostics ?? []).map((d) => d.code))

/** A 24-bit bottom-up BMP whose left half is black and right half white. */
const bitmap = (width: number, height: number): Uint8Array => {
  const stride = Math.ceil((width * 3) / 4) * 4
  const out = new Uint8Array(54 + stride * height)
  const view = new DataView(out.buffer)
  out[0] = 0x42
  out[1] = 0x4d
  view.setUint32(2, out.length, true)
  view.setUint32(10, 54, true)
  view.setUint32(14, 40, true)
  view.setInt32(18, width, true)
  view.setInt32(22, height, true)
  view.setUint16(26, 1, true)
  view.setUint16(28, 24, true)
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const v = x < width / 2 ? 0 : 255
      out.fill(v, 54 + y * stride + x * 3, 54 + y * stride + x * 3 + 3)
    }
  }
  return out
}

describe("image headers", () => {
  it("reads the type and size of every raster format, and refuses vector or broken data", async () => {
    const base = sharp({ create: { width: 321, height: 123, channels: 3, background: "#808080" } })
    const cases = [
      ["png", await base.clone().png().toBuffer()],
      ["jpeg", await base.clone().jpeg().toBuffer()],
      ["gif", await base.clone().gif().toBuffer()],
      ["webp", await base.clone().webp().toBuffer()],
      ["tiff", await base.clone().tiff().toBuffer()]
    ] as const
    for (const [type, bytes] of cases) expect(readImageHeader(new Uint8Array(bytes))).toEqual({ type, width: 321, height: 123 })
    expect(readImageHeader(bitmap(150, 60))).toEqual({ type: "bmp", width: 150, height: 60 })
    expect(readImageHeader(strToU8("<svg xmlns='http://www.w3.org/2000/svg' width='500' height='500'/>"))).toBeUndefined()
    expect(readImageHeader(new Uint8Array([0x89, 0x50, 0x4e, 0x47]))).toBeUndefined()
  })

  it("decodes uncompressed bitmaps to grey pixels, top row first", () => {
    const grey = decodeBitmap(bitmap(10, 3))
    expect(grey).toBeDefined()
    expect(grey!.width).toBe(10)
    expect(grey!.height).toBe(3)
    expect(Array.from(grey!.data.subarray(0, 10))).toEqual([0, 0, 0, 0, 0, 255, 255, 255, 255, 255])
  })
})

describe("pictures without OCR", () => {
  it("fast mode warns on a scan wrapped in a docx, keeps the alt text, and leaks no image references", async () => {
    const scan = await logoPng(1200, 1550)
    const bytes = await docxWithPictures({ paragraphs: 0, pictures: [{ png: scan, width: 600, height: 776, alt: "Scanned letter" }] })
    const pages = await read(bytes, "docx", "fast")
    expect(codes(pages)).toContain("ocr_skipped")
    expect(pages[0].blocks.map((b) => b.content).join("\n")).toContain("![Scanned letter]()")
    expect(pages.flatMap((p) => p.blocks).every((b) => Object.getOwnPropertySymbols(b).length === 0 && b.source !== "layout_ocr")).toBe(true)
    // Without an engine, auto says it could not read the scan.
    expect(codes(await read(bytes, "docx", "auto"))).toContain("ocr_unavailable")
    // A scan laid out in a table cell is found too.
    const inTable = await docxWithPictures({ paragraphs: 0, inTable: true, pictures: [{ png: scan, width: 600, height: 776 }] })
    const tablePages = await read(inTable, "docx", "fast")
    expect(tablePages[0].blocks[0].kind).toBe("table")
    expect(codes(tablePages)).toContain("ocr_skipped")
  })

  it("a text-rich document with a small logo needs no OCR", async () => {
    const bytes = await docxWithPictures({ paragraphs: 6, pictures: [{ png: await logoPng(240, 90), width: 120, height: 45 }] })
    expect(codes(await read(bytes, "docx", "fast"))).not.toContain("ocr_skipped")
    // Even a large picture is not a scan when the page has its own text.
    const illustrated = await docxWithPictures({ paragraphs: 6, pictures: [{ png: await logoPng(1200, 900), width: 600, height: 450 }] })
    expect(codes(await read(illustrated, "docx", "fast"))).not.toContain("ocr_skipped")
  })

  it("fast mode warns on the slide that is a full-slide picture only", async () => {
    const scan = await logoPng(1600, 900)
    const bytes = await pptxWithPictures([
      { title: "Agenda", pictures: [{ png: await logoPng(200, 80), x: 8, y: 4.5, w: 1.5, h: 0.6 }] },
      { pictures: [{ png: scan, x: 0, y: 0, w: 10, h: 5.625 }] }
    ])
    const pages = await read(bytes, "pptx", "fast")
    expect(pages).toHaveLength(2)
    expect(codes([pages[0]])).not.toContain("ocr_skipped")
    expect(pages[1].diagnostics?.find((d) => d.code === "ocr_skipped")?.page).toBe(2)
  })

  it("odt and epub point their pictures at the stored images", async () => {
    const scan = await logoPng(1000, 1300)
    const odt = zipSync({
      mimetype: strToU8("application/vnd.oasis.opendocument.text"),
      "content.xml": strToU8(
        `<?xml version="1.0"?><office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" xmlns:xlink="http://www.w3.org/1999/xlink" xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0">` +
          `<office:body><office:text><text:p><draw:frame svg:width="17cm" svg:height="22cm"><draw:image xlink:href="Pictures/scan.png"/><svg:title>Page scan</svg:title></draw:frame></text:p></office:text></office:body></office:document-content>`
      ),
      "Pictures/scan.png": scan
    })
    const odtPages = await read(odt, "odt", "fast")
    expect(codes(odtPages)).toContain("ocr_skipped")
    expect(odtPages[0].blocks[0].content).toContain("![Page scan]()")

    const epub = zipSync({
      mimetype: strToU8("application/epub+zip"),
      "META-INF/container.xml": strToU8(`<?xml version="1.0"?><container xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>`),
      "OEBPS/content.opf": strToU8(
        `<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Scans</dc:title></metadata>` +
          `<manifest><item id="c1" href="text/c1.xhtml" media-type="application/xhtml+xml"/><item id="c2" href="text/c2.xhtml" media-type="application/xhtml+xml"/><item id="i1" href="images/scan.png" media-type="image/png"/></manifest><spine><itemref idref="c1"/><itemref idref="c2"/></spine></package>`
      ),
      "OEBPS/text/c1.xhtml": strToU8(`<html xmlns="http://www.w3.org/1999/xhtml"><body><p><img src="../images/scan.png" alt="scanned page"/></p></body></html>`),
      "OEBPS/text/c2.xhtml": strToU8(`<html xmlns="http://www.w3.org/1999/xhtml"><body><h1>Chapter</h1><p>Plain text, no pictures.</p></body></html>`),
      "OEBPS/images/scan.png": scan
    })
    const epubPages = await read(epub, "epub", "fast")
    expect(epubPages[0].diagnostics?.map((d) => d.code)).toContain("ocr_skipped")
    expect(codes([epubPages[1]])).not.toContain("ocr_skipped")
  })
})
