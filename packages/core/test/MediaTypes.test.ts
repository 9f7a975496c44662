/** The one media-type table: every format in it once, every extension and MIME type naming one format, both hints agreeing. */
import { describe, expect, it } from "vitest"
import fc from "fast-check"
import { DocumentFormat, detectFormat } from "../src/index.ts"
import { documentExtensions, formatOfExtension, formatOfMimeType, mediaTypes, mimeTypeOf } from "../src/MediaTypes.ts"

const names = (select: (entry: (typeof mediaTypes)[number]) => ReadonlyArray<string>) => mediaTypes.flatMap(select)

describe("mediaTypes", () => {
  it("has every format the service reads exactly once", () => {
    expect(mediaTypes.map((entry) => entry.format).sort()).toEqual([...DocumentFormat.literals].sort())
  })

  it("names each extension and MIME type once", () => {
    const extensions = names((entry) => entry.extensions)
    const types = names((entry) => [entry.mimeType.toLowerCase(), ...entry.aliases])
    expect(new Set(extensions).size).toBe(extensions.length)
    expect(new Set(types).size).toBe(types.length)
    for (const name of [...extensions, ...types]) expect(name).toBe(name.toLowerCase())
  })

  it("lists the document extensions in the unsupported-type message's order", () => {
    expect(documentExtensions.join(" ")).toBe("pdf docx doc docm odt ods odp rtf xlsx xls xlsm xlsb pptx ppt pptm epub csv")
  })

  it("maps every extension and MIME type (any case, any parameters) to its format and back", () => {
    const entries = fc.constantFrom(...mediaTypes)
    const casing = fc.array(fc.boolean(), { maxLength: 120 })
    const parameters = fc.constantFrom("", "; charset=utf-8", " ;q=0.9", ";name=\"a b\"")
    fc.assert(fc.property(entries, casing, parameters, (entry, upper, params) => {
      expect(mimeTypeOf(entry.format)).toBe(entry.mimeType)
      expect(formatOfMimeType(mimeTypeOf(entry.format))).toBe(entry.format)
      for (const ext of entry.extensions) expect(formatOfExtension(ext)).toBe(entry.format)
      for (const type of [entry.mimeType, ...entry.aliases]) {
        const cased = [...type].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join("")
        expect(formatOfMimeType(` ${cased}${params}`)).toBe(entry.format)
      }
    }))
  })

  it("gives detection the same hint whether it comes from the file name or the declared type", () => {
    const texts = fc.constantFrom("a,b\n1,2\n", "{\"a\": 1}", "<!doctype html><p>x</p>", "plain words", "<Workbook/>", "%PDF-1.4\n", "{\\rtf1 x}")
    const bytes = fc.oneof(fc.uint8Array({ maxLength: 512 }), texts.map((text) => new TextEncoder().encode(text)))
    const hints = fc.constantFrom(...mediaTypes).chain((entry) =>
      fc.tuple(fc.constantFrom(...entry.extensions), fc.constantFrom(entry.mimeType, ...entry.aliases))
    )
    fc.assert(fc.property(bytes, hints, (content, [ext, type]) => {
      expect(detectFormat({ bytes: content, fileName: `file.${ext.toUpperCase()}` })).toBe(detectFormat({ bytes: content, contentType: type }))
    }), { numRuns: 500 })
  })
})
