/**
 * The ZIP reader's budgets of decoded bytes: a part whose declared size is over the per-part
 * limit is refused before a byte is inflated, a header that lies is caught by the inflate cap,
 * and the parts read from one document share one budget. Archives are built in the test.
 */
import { strToU8, zipSync } from "fflate"
import { describe, expect, it } from "vitest"
import { DocumentError } from "../src/DocumentReader.ts"
import { defaultZipLimits, ZipArchive } from "../src/ZipArchive.ts"

const MiB = 1024 * 1024

/** Bytes that deflate poorly (ratio near 1), so the ratio check never decides. */
const noise = (length: number, seed = 1): Uint8Array => {
  const out = new Uint8Array(Math.round(length))
  let x = seed
  for (let i = 0; i < length; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0
    out[i] = x >>> 24
  }
  return out
}

/** Rewrites the uncompressed size the central directory declares for `name`. */
const declareSize = (zip: Uint8Array, name: string, size: number): Uint8Array => {
  const bytes = zip.slice()
  const view = new DataView(bytes.buffer)
  for (let i = 0; i + 46 < bytes.length; i++) {
    if (view.getUint32(i, true) !== 0x02014b50) continue
    const nameLength = view.getUint16(i + 28, true)
    if (new TextDecoder().decode(bytes.subarray(i + 46, i + 46 + nameLength)) === name) view.setUint32(i + 24, size, true)
  }
  return bytes
}

const failure = (run: () => unknown): DocumentError => {
  try {
    run()
  } catch (error) {
    if (error instanceof DocumentError) return error
    throw error
  }
  throw new Error("expected a DocumentError")
}

describe("ZipArchive budgets", () => {
  it("states its defaults: 128 MB a part, 512 MB a document", () => {
    expect(defaultZipLimits.maxEntryBytes).toBe(128 * MiB)
    expect(defaultZipLimits.maxDecodedBytes).toBe(512 * MiB)
  })

  it("refuses a part declared at 400 MB at once, without inflating it (a 1.3 MB docx below the ratio limit)", () => {
    // 1.3 MB compressed, 400 MB declared: a ratio of about 300, under the zip-bomb check's 500.
    const zip = declareSize(zipSync({ "word/document.xml": noise(1.3 * MiB) }), "word/document.xml", 400 * MiB)
    expect(zip.length).toBeGreaterThan(1.3 * MiB)
    const archive = new ZipArchive(zip, "docx")
    // Refused on the declared size: only that path names the size ("inflates to 400 MB"); the
    // inflate cap's message says "more than", and nothing was counted as decoded.
    const error = failure(() => archive.read("word/document.xml"))
    expect(error.reason._tag).toBe("LimitExceeded")
    expect(error.message).toBe("docx: the part word/document.xml inflates to 400 MB; one part may inflate to at most 128 MB")
    expect(archive.decodedBytes).toBe(0)
  })

  it("caps inflation at the declared size when the header understates it", () => {
    const zip = zipSync({ "xl/worksheets/sheet1.xml": noise(3 * MiB) })
    const archive = new ZipArchive(declareSize(zip, "xl/worksheets/sheet1.xml", 10), "xlsx", { maxEntryBytes: 2 * MiB })
    const error = failure(() => archive.read("xl/worksheets/sheet1.xml"))
    expect(error.reason._tag).toBe("LimitExceeded")
    expect(error.message).toBe("xlsx: zip entry xl/worksheets/sheet1.xml inflates to more than its declared size of 1 KB")
  })

  it("caps inflation at the part limit when the declared size is just under it", () => {
    const zip = zipSync({ "word/document.xml": noise(3 * MiB) })
    const archive = new ZipArchive(declareSize(zip, "word/document.xml", 2 * MiB - 10), "docx", { maxEntryBytes: 2 * MiB })
    expect(failure(() => archive.read("word/document.xml")).message).toBe("docx: the part word/document.xml inflates to more than 2 MB; one part may inflate to at most 2 MB")
  })

  it("refuses a part over the per-part limit by its declared size", () => {
    const archive = new ZipArchive(zipSync({ "content.xml": noise(3 * MiB) }), "odt", { maxEntryBytes: 2 * MiB })
    expect(failure(() => archive.read("content.xml")).message).toBe("odt: the part content.xml inflates to 3 MB; one part may inflate to at most 2 MB")
  })

  it("shares one budget among all the parts read from a document, re-reads included", () => {
    const archive = new ZipArchive(zipSync({ "a.xml": noise(MiB, 1), "b.xml": noise(MiB, 2) }), "pptx", { maxDecodedBytes: Math.round(2.5 * MiB) })
    expect(archive.read("a.xml")?.length).toBe(MiB)
    expect(archive.read("b.xml")?.length).toBe(MiB)
    expect(archive.decodedBytes).toBe(2 * MiB)
    const error = failure(() => archive.read("a.xml"))
    expect(error.reason._tag).toBe("LimitExceeded")
    expect(error.message).toBe("pptx: the document's parts inflate to 3 MB in all; one document may inflate to at most 3 MB")
  })

  it("reads parts under the limits as before", () => {
    const archive = new ZipArchive(zipSync({ "word/document.xml": strToU8("<w:document>hello</w:document>") }), "docx")
    expect(archive.text("word/document.xml")).toBe("<w:document>hello</w:document>")
  })
})
