/**
 * Without LibreOffice (the binary is pointed at a path that does not exist): .ppt fails with
 * MissingComponent naming it, and .doc falls back to the built-in Word 97 text reader, with a
 * warning that headings, lists and emphasis are lost. The .doc fixture was made by LibreOffice
 * from the generated survey.docx (Builders.ts) and is committed.
 */
import { describe, expect, it } from "vitest"
import { readFileSync } from "node:fs"
import fc from "fast-check"
import { Exit } from "effect"
import { DocumentError } from "@strata/core"
import { readDocument, readExit, readFailure } from "./fixtures/ReadDocument.ts"

process.env.STRATA_SOFFICE = "/nonexistent/soffice"
const survey = new Uint8Array(readFileSync(new URL("./fixtures/legacy/survey.doc", import.meta.url)))

describe("legacy formats when LibreOffice is absent", () => {
  it("fails with MissingComponent for .ppt", async () => {
    const error = await readFailure(new Uint8Array([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]), "ppt")
    expect(error.reason._tag).toBe("MissingComponent")
    if (error.reason._tag === "MissingComponent") expect(error.reason.component).toBe("LibreOffice")
  })

  it("reads a .doc as text, tables and footnotes, with a warning", async () => {
    const out = await readDocument(survey, "doc")
    expect(out.markdown).toContain("The keepers recorded unusually calm weather at Pelican Point.[^1]")
    expect(out.markdown).toContain("| Gannet Rock | Declan Horgan | 3907 |")
    expect(out.markdown).toContain("[^1]: Measured at noon.")
    expect(out.markdown).not.toContain("HYPERLINK")
    expect(out.pages[0].diagnostics?.[0]?.code).toBe("doc_text_only")
  })

  it("fails cleanly on mutated .doc bytes", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 20 }), async (edits) => {
        const bytes = survey.slice()
        for (const [at, value] of edits) bytes[at % bytes.length] = value
        const exit = await readExit(bytes, "doc")
        if (Exit.isFailure(exit)) {
          const error = Exit.findErrorOption(exit)
          expect(error._tag, String(exit.cause)).toBe("Some")
          if (error._tag === "Some") expect(error.value).toBeInstanceOf(DocumentError)
        }
      }),
      { numRuns: 200 }
    )
  })
})
