/**
 * Untrusted bytes: zip bombs and oversized archives fail with LimitExceeded before inflating,
 * XML entities are never expanded (no XXE, no billion laughs), and every reader given random
 * or mutated input ends with a typed DocumentError or a result: no crash, no hang.
 */
import { describe, expect, it } from "vitest"
import fc from "fast-check"
import { Exit } from "effect"
import { strToU8, zipSync } from "fflate"
import { DocumentError, type DocumentFormat, ZipArchive } from "@strata/core"
import { parseXml, textOf } from "../src/Xml.ts"
import { buildCsv, buildDocx, buildEpub, buildOdp, buildOds, buildOdt, buildPptx, buildRtf, buildXlsx, buildBinaryWorkbook } from "./fixtures/Builders.ts"
import { readExit, readFailure } from "./fixtures/ReadDocument.ts"

const docxWith = (documentXml: string): Uint8Array =>
  zipSync({
    "[Content_Types].xml": strToU8("<Types/>"),
    "word/document.xml": strToU8(documentXml)
  })

describe("zip limits", () => {
  it("rejects an entry whose compression ratio says zip bomb, before inflating it", async () => {
    const bomb = zipSync({ "word/document.xml": [new Uint8Array(60 * 1024 * 1024), { level: 9 }] })
    expect(bomb.length).toBeLessThan(200_000)
    const error = await readFailure(bomb, "docx")
    expect(error.reason._tag).toBe("LimitExceeded")
  })

  it("rejects archives with too many entries", () => {
    const files: Record<string, Uint8Array> = {}
    for (let i = 0; i < 60; i++) files[`f${i}.xml`] = strToU8("x")
    const bytes = zipSync(files)
    expect(() => new ZipArchive(bytes, "docx", { maxEntries: 50, maxTotalBytes: 1e9, maxRatio: 100 })).toThrow(DocumentError)
    expect(new ZipArchive(bytes, "docx", { maxEntries: 100, maxTotalBytes: 1e9, maxRatio: 100 }).names).toHaveLength(60)
  })

  it("caps what an entry may inflate to even when its header lies about the size", () => {
    const bytes = zipSync({ "a.xml": [new Uint8Array(4 * 1024 * 1024).fill(65), { level: 9 }] })
    // Patch the declared uncompressed size in the central directory down to 10 bytes.
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    for (let i = bytes.length - 22; i >= 0; i--) {
      if (view.getUint32(i, true) === 0x02014b50) {
        view.setUint32(i + 24, 10, true)
        break
      }
    }
    const zip = new ZipArchive(bytes, "docx")
    expect(() => zip.read("a.xml")).toThrow(DocumentError)
  })

  it("reports encrypted and non-zip input as typed errors", async () => {
    expect((await readFailure(new TextEncoder().encode("not a zip at all"), "xlsx")).reason._tag).toBe("Corrupt")
  })
})

describe("XML entities", () => {
  it("never resolves external entities (XXE)", async () => {
    const xml = `<?xml version="1.0"?><!DOCTYPE w [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><w:document xmlns:w="x"><w:body><w:p><w:r><w:t>before &xxe; after</w:t></w:r></w:p></w:body></w:document>`
    const md = (await readExit(docxWith(xml), "docx").then((exit) => (Exit.isSuccess(exit) ? exit.value.markdown : "")))
    expect(md).toContain("before &xxe; after")
    expect(md).not.toContain("root:")
  })

  it("does not expand entity definitions (billion laughs)", () => {
    const lol = `<!DOCTYPE l [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]><r>&c;</r>`
    expect(textOf(parseXml(lol))).toBe("&c;")
  })

  it("decodes the predefined entities and character references only", () => {
    expect(textOf(parseXml("<r>&lt;a&gt; &amp; &#233;&#x263A; &quot;</r>"))).toBe("<a> & é☺ \"")
  })
})

/** Runs a read and checks it ends as a success or a typed DocumentError, within a time bound. */
const survives = async (bytes: Uint8Array, format: DocumentFormat): Promise<void> => {
  const started = Date.now()
  const exit = await readExit(bytes, format, { deadline: Date.now() + 20_000 })
  expect(Date.now() - started).toBeLessThan(20_000)
  if (Exit.isFailure(exit)) {
    const error = Exit.findErrorOption(exit)
    expect(error._tag, `defect instead of a typed error: ${String(exit.cause)}`).toBe("Some")
    if (error._tag === "Some") expect(error.value).toBeInstanceOf(DocumentError)
  }
}

describe("fuzzing every reader", () => {
  const formats: Array<DocumentFormat> = ["docx", "docm", "xlsx", "xlsm", "xls", "xlsb", "pptx", "pptm", "odt", "ods", "odp", "epub", "rtf", "csv"]

  it("random bytes end in a typed error or a result", async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 4096 }), fc.constantFrom(...formats), async (bytes, format) => survives(bytes, format)),
      { numRuns: 150 }
    )
  })

  it("mutated valid documents end in a typed error or a result", async () => {
    const seeds: Array<[DocumentFormat, Uint8Array]> = [
      ["docx", await buildDocx()], ["xlsx", await buildXlsx()], ["pptx", await buildPptx()], ["odt", buildOdt()], ["ods", buildOds()],
      ["odp", buildOdp()], ["epub", buildEpub()], ["rtf", buildRtf()], ["csv", buildCsv()], ["xls", buildBinaryWorkbook("biff8")]
    ]
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: seeds.length - 1 }),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 12 }),
        fc.option(fc.nat()),
        async (which, edits, cut) => {
          const [format, seed] = seeds[which]
          const bytes = seed.slice(0, cut === null ? seed.length : Math.max(1, cut % seed.length))
          for (const [at, value] of edits) bytes[at % bytes.length] = value
          await survives(bytes, format)
        }
      ),
      { numRuns: 200 }
    )
  })

  it("XML readers survive mangled markup inside a valid container", async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 300 }), fc.constantFrom("<w:p>", "</w:tbl>", "<w:tc><w:tcPr><w:gridSpan w:val=\"99999999\"/><w:vMerge/></w:tcPr>", "<w:numPr><w:ilvl w:val=\"-5\"/><w:numId w:val=\"7\"/></w:numPr>", "<![CDATA[", "<!--", "&#xFFFFFF;"), async (noise, tag) => {
        await survives(docxWith(`<w:document xmlns:w="x"><w:body>${tag}${noise}<w:p><w:r><w:t>ok</w:t></w:r></w:p></w:body></w:document>`), "docx")
      }),
      { numRuns: 150 }
    )
  })
})

describe("big or absurd inputs stay bounded", () => {
  it("absurd table offsets and spans in Word", async () => {
    const row = `<w:tr><w:trPr><w:gridBefore w:val="999999999"/></w:trPr><w:tc><w:tcPr><w:gridSpan w:val="99999"/></w:tcPr><w:p><w:r><w:t>x</w:t></w:r></w:p></w:tc></w:tr>`
    const started = Date.now()
    await survives(docxWith(`<w:document xmlns:w="x"><w:body><w:tbl>${row.repeat(2000)}</w:tbl></w:body></w:document>`), "docx")
    expect(Date.now() - started).toBeLessThan(10_000)
  })

  it("a 50 000-row CSV converts in well under a few seconds", async () => {
    const lines = ["id,name,value"]
    for (let i = 0; i < 50_000; i++) lines.push(`${i},name ${i},${i * 1.5}`)
    const started = Date.now()
    const exit = await readExit(new TextEncoder().encode(lines.join("\n")), "csv")
    expect(Exit.isSuccess(exit)).toBe(true)
    if (Exit.isSuccess(exit)) expect(exit.value.markdown.split("\n")).toHaveLength(50_002)
    expect(Date.now() - started).toBeLessThan(5_000)
  })
})

describe("deadlines", () => {
  it("a deadline already passed fails with Timeout", async () => {
    const error = await readFailure(buildRtf(), "rtf", { deadline: Date.now() - 1 })
    expect(error.reason._tag).toBe("Timeout")
    expect(error.isRetryable).toBe(true)
  })
})
