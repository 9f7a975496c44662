/**
 * What a reader throws reaches the client only as a reason in our words: absurd nesting and
 * inputs too large for a string are limits (422 DOCUMENT_TOO_COMPLEX), other throws are damage;
 * and the shapes that used to overflow the stack (arguments spread from 100,000s of rows or
 * paragraphs) now read.
 */
import { Exit } from "effect"
import { strToU8, zipSync } from "fflate"
import { describe, expect, it } from "vitest"
import { toDocumentError } from "../src/Failure.ts"
import { maxXmlDepth, XmlError } from "../src/Xml.ts"
import { readExit, readFailure } from "./fixtures/ReadDocument.ts"

const docxWith = (body: string): Uint8Array =>
  zipSync({
    "[Content_Types].xml": strToU8("<Types/>"),
    "word/document.xml": strToU8(`<w:document xmlns:w="x"><w:body>${body}</w:body></w:document>`)
  })

/** Engine and library wording that must never be shown to a client. */
const internals = /Maximum call stack|0x1fffffe8|Invalid string length|Cannot read properties|undefined|TypeError|RangeError|XML nested/

describe("toDocumentError", () => {
  it("maps a stack overflow and an oversized string to LimitExceeded, in our words", () => {
    const overflow = toDocumentError("docx", new RangeError("Maximum call stack size exceeded"))
    expect(overflow.reason._tag).toBe("LimitExceeded")
    expect(overflow.message).toBe("docx: the document nests elements too deeply to read")
    const string = toDocumentError("xlsx", new Error("Cannot create a string longer than 0x1fffffe8 characters"))
    expect(string.reason._tag).toBe("LimitExceeded")
    expect(string.message).toBe("xlsx: the document's text is too large to read")
  })

  it("maps anything else to Corrupt with a message of ours naming the format", () => {
    const error = toDocumentError("pptx", new TypeError("Cannot read properties of undefined (reading 'attrs')"))
    expect(error.reason._tag).toBe("Corrupt")
    expect(error.message).toBe("pptx: the document is damaged and could not be read")
  })

  it("maps XML nested past the depth limit to LimitExceeded", () => {
    const error = toDocumentError("odt", new XmlError("XML nested too deeply", true))
    expect(error.reason._tag).toBe("LimitExceeded")
    expect(error.message).toBe(`odt: the document nests elements more than ${maxXmlDepth.toLocaleString("en-US")} levels deep, too deeply to read`)
  })
})

describe("near-bomb documents", () => {
  it("a docx nested deeper than the limit fails with LimitExceeded and no engine text", async () => {
    const depth = maxXmlDepth + 100
    const error = await readFailure(docxWith(`<w:p>${"<w:smartTag>".repeat(depth)}<w:r><w:t>x</w:t></w:r>${"</w:smartTag>".repeat(depth)}</w:p>`), "docx")
    expect(error.reason._tag).toBe("LimitExceeded")
    expect(error.message).not.toMatch(internals)
  })

  it("a docx nested just under the limit reads", async () => {
    const depth = maxXmlDepth - 20
    const exit = await readExit(docxWith(`<w:p>${"<w:smartTag>".repeat(depth)}<w:r><w:t>deep</w:t></w:r>${"</w:smartTag>".repeat(depth)}</w:p>`), "docx")
    expect(Exit.isSuccess(exit) && exit.value.markdown).toContain("deep")
  })

  it("a docx of 200,000 paragraphs reads (its blocks were spread as arguments and overflowed the stack)", async () => {
    const exit = await readExit(docxWith("<w:p><w:r><w:t>x</w:t></w:r></w:p>".repeat(200_000)), "docx")
    expect(Exit.isSuccess(exit)).toBe(true)
  })

  it("a CSV of 150,000 rows reads (its width was a Math.max over every row as arguments)", async () => {
    const exit = await readExit(strToU8(`n\n${"1\n".repeat(150_000)}`), "csv")
    expect(Exit.isSuccess(exit)).toBe(true)
  })

  it("a workbook SheetJS cannot parse fails as damaged, without SheetJS's own text", async () => {
    // A compound-file signature followed by noise.
    const bytes = new Uint8Array(4096)
    bytes.set([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1])
    for (let i = 8; i < bytes.length; i++) bytes[i] = (i * 37) & 0xff
    const error = await readFailure(bytes, "xls")
    expect(error.message).toMatch(/^xls: /)
    expect(error.message).not.toMatch(internals)
  })
})
