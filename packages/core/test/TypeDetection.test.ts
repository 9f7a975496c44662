/** Type detection: content first (magic bytes, container inspection), then extension and content type. */
import { describe, expect, it } from "vitest"
import fc from "fast-check"
import { deflateRawSync } from "node:zlib"
import { detectFormat, extensionOf } from "../src/index.ts"

const utf8 = (text: string) => new TextEncoder().encode(text)

/** A minimal ZIP writer (stored or deflated entries, CRC left at zero: detection never checks it). */
const zip = (files: Record<string, string>, deflate = true): Uint8Array => {
  const locals: Array<Uint8Array> = []
  const centrals: Array<Uint8Array> = []
  let offset = 0
  for (const [name, text] of Object.entries(files)) {
    const nameBytes = utf8(name)
    const raw = utf8(text)
    const stored = name === "mimetype" || !deflate
    const data = stored ? raw : new Uint8Array(deflateRawSync(raw))
    const local = new Uint8Array(30 + nameBytes.length + data.length)
    const lv = new DataView(local.buffer)
    lv.setUint32(0, 0x04034b50, true)
    lv.setUint16(8, stored ? 0 : 8, true)
    lv.setUint32(18, data.length, true)
    lv.setUint32(22, raw.length, true)
    lv.setUint16(26, nameBytes.length, true)
    local.set(nameBytes, 30)
    local.set(data, 30 + nameBytes.length)
    const central = new Uint8Array(46 + nameBytes.length)
    const cv = new DataView(central.buffer)
    cv.setUint32(0, 0x02014b50, true)
    cv.setUint16(10, stored ? 0 : 8, true)
    cv.setUint32(20, data.length, true)
    cv.setUint32(24, raw.length, true)
    cv.setUint16(28, nameBytes.length, true)
    cv.setUint32(42, offset, true)
    central.set(nameBytes, 46)
    locals.push(local)
    centrals.push(central)
    offset += local.length
  }
  const directorySize = centrals.reduce((n, c) => n + c.length, 0)
  const end = new Uint8Array(22)
  const ev = new DataView(end.buffer)
  ev.setUint32(0, 0x06054b50, true)
  ev.setUint16(8, centrals.length, true)
  ev.setUint16(10, centrals.length, true)
  ev.setUint32(12, directorySize, true)
  ev.setUint32(16, offset, true)
  return Buffer.concat([...locals, ...centrals, end])
}

/** An OLE2 compound file whose directory (sector 0, at offset 512) names the given streams. */
const compound = (streams: ReadonlyArray<string>): Uint8Array => {
  const bytes = new Uint8Array(512 + 512 * Math.ceil((streams.length + 1) / 4))
  bytes.set([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1])
  const entry = (index: number, name: string, type: number) => {
    const at = 512 + index * 128
    for (let i = 0; i < name.length; i++) bytes[at + i * 2] = name.charCodeAt(i)
    bytes[at + 64] = (name.length + 1) * 2
    bytes[at + 66] = type
  }
  entry(0, "Root Entry", 5)
  streams.forEach((name, i) => entry(i + 1, name, 2))
  return bytes
}

const contentTypes = (main: string) =>
  `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Override PartName="/x" ContentType="${main}"/></Types>`

describe("detectFormat", () => {
  it("reads PDF, RTF and OLE2 compound files by their bytes, whatever the name says", () => {
    expect(detectFormat({ bytes: utf8("%PDF-1.7\n..."), fileName: "report.docx" })).toBe("pdf")
    expect(detectFormat({ bytes: utf8("{\\rtf1\\ansi hello}"), fileName: "letter.doc" })).toBe("rtf")
    expect(detectFormat({ bytes: compound(["WordDocument", "1Table"]) })).toBe("doc")
    expect(detectFormat({ bytes: compound(["Workbook"]) })).toBe("xls")
    expect(detectFormat({ bytes: compound(["Book"]) })).toBe("xls")
    expect(detectFormat({ bytes: compound(["Current User", "PowerPoint Document"]), fileName: "x.doc" })).toBe("ppt")
    expect(detectFormat({ bytes: compound(["EncryptedPackage"]), fileName: "secret.xlsx" })).toBe("xlsx")
    expect(detectFormat({ bytes: compound(["Something"]) , fileName: "x.doc" })).toBeUndefined()
  })

  it("looks inside ZIP packages: content types, macro variants, binary workbooks, ODF mimetype, EPUB", () => {
    const word = "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"
    expect(detectFormat({ bytes: zip({ "[Content_Types].xml": contentTypes(word), "word/document.xml": "<w/>" }), fileName: "a.pdf" })).toBe("docx")
    expect(detectFormat({ bytes: zip({ "[Content_Types].xml": contentTypes("application/vnd.ms-word.document.macroEnabled.main+xml") }) })).toBe("docm")
    expect(detectFormat({ bytes: zip({ "[Content_Types].xml": contentTypes("application/vnd.ms-excel.sheet.macroEnabled.main+xml") }) })).toBe("xlsm")
    expect(detectFormat({ bytes: zip({ "[Content_Types].xml": contentTypes("application/vnd.ms-excel.sheet.binary.macroEnabled.main") }) })).toBe("xlsb")
    expect(detectFormat({ bytes: zip({ "[Content_Types].xml": contentTypes("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml") }) })).toBe("xlsx")
    expect(detectFormat({ bytes: zip({ "[Content_Types].xml": contentTypes("application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml") }) })).toBe("pptx")
    expect(detectFormat({ bytes: zip({ "[Content_Types].xml": contentTypes("application/vnd.ms-powerpoint.presentation.macroEnabled.main+xml") }) })).toBe("pptm")
    // Without content types the part names decide.
    expect(detectFormat({ bytes: zip({ "ppt/presentation.xml": "<p/>", "ppt/vbaProject.bin": "x" }) })).toBe("pptm")
    expect(detectFormat({ bytes: zip({ "xl/workbook.bin": "x" }, false) })).toBe("xlsb")
    expect(detectFormat({ bytes: zip({ mimetype: "application/vnd.oasis.opendocument.text", "content.xml": "<x/>" }) })).toBe("odt")
    expect(detectFormat({ bytes: zip({ mimetype: "application/vnd.oasis.opendocument.spreadsheet" }) })).toBe("ods")
    expect(detectFormat({ bytes: zip({ mimetype: "application/vnd.oasis.opendocument.presentation" }), fileName: "x.odt" })).toBe("odp")
    expect(detectFormat({ bytes: zip({ mimetype: "application/epub+zip", "META-INF/container.xml": "<c/>" }) })).toBe("epub")
    // A ZIP of something else is not a document.
    expect(detectFormat({ bytes: zip({ "photo.jpg": "x" }), fileName: "photos.zip" })).toBeUndefined()
  })

  it("leaves a ZIP package it cannot open to the reader its name asks for, which says why", () => {
    // Cut before the central directory: no end-of-directory record.
    const truncated = zip({ "word/document.xml": "<w/>".repeat(100) }).subarray(0, 40)
    expect(detectFormat({ bytes: truncated, fileName: "report.docx" })).toBe("docx")
    expect(detectFormat({ bytes: truncated, fileName: "photos.zip" })).toBeUndefined()
    expect(detectFormat({ bytes: truncated })).toBeUndefined()
  })

  it("classifies text by sniffing, then extension and content type", () => {
    expect(detectFormat({ bytes: utf8("<!DOCTYPE html><html><body>x</body></html>") })).toBe("html")
    expect(detectFormat({ bytes: utf8("<?xml version=\"1.0\"?>\n<html xmlns=\"http://www.w3.org/1999/xhtml\"><body/></html>"), fileName: "a.xhtml" })).toBe("html")
    expect(detectFormat({ bytes: utf8("a,b\n1,2\n"), fileName: "data.csv" })).toBe("csv")
    expect(detectFormat({ bytes: utf8("a,b\n1,2\n"), contentType: "text/csv; charset=utf-8" })).toBe("csv")
    expect(detectFormat({ bytes: utf8("a\tb\n1\t2\n"), fileName: "export.xls" })).toBe("csv")
    expect(detectFormat({ bytes: utf8("<?xml version=\"1.0\"?>\n<?mso-application progid=\"Excel.Sheet\"?>\n<Workbook xmlns=\"urn:schemas-microsoft-com:office:spreadsheet\"/>"), fileName: "report.xml" })).toBe("xls")
    expect(detectFormat({ bytes: utf8("{\"a\": [1, 2]}") })).toBe("json")
    expect(detectFormat({ bytes: utf8("{not json") })).toBe("text")
    expect(detectFormat({ bytes: utf8("Just some words.\n") })).toBe("text")
    const utf16 = new Uint8Array([0xff, 0xfe, ...Array.from("<html></html>").flatMap((c) => [c.charCodeAt(0), 0])])
    expect(detectFormat({ bytes: utf16 })).toBe("html")
  })

  it("gives undefined for binary content of no format we read", () => {
    expect(detectFormat({ bytes: new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]), fileName: "x.png" })).toBeUndefined()
    expect(detectFormat({ bytes: new Uint8Array([0x1f, 0x8b, 8, 0, 0, 0, 0, 0]), fileName: "x.docx" })).toBeUndefined()
  })

  it("never throws on arbitrary or truncated bytes (property)", () => {
    const docx = zip({ "[Content_Types].xml": contentTypes("application/vnd.ms-word.document.macroEnabled.main+xml") })
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 2048 }), fc.option(fc.constantFrom("a.docx", "b.csv", "c", "d.xls")), (bytes, fileName) => {
        detectFormat({ bytes, fileName: fileName ?? undefined })
        detectFormat({ bytes: docx.subarray(0, bytes.length % docx.length) })
        const mutated = docx.slice()
        for (let i = 0; i < bytes.length && i < 16; i++) mutated[(bytes[i] * 7 + i * 31) % mutated.length] = bytes[i]
        detectFormat({ bytes: mutated })
      }),
      { numRuns: 300 }
    )
  })

  it("takes the extension from a file name or path", () => {
    expect(extensionOf("dir/Report.Final.DOCX")).toBe("docx")
    expect(extensionOf("README")).toBeUndefined()
  })
})
