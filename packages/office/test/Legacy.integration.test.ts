/**
 * Legacy .doc and .ppt through LibreOffice headless: the fixtures are our generated .docx and
 * .pptx, converted to the legacy formats by LibreOffice itself, then read back by the legacy
 * reader (LibreOffice again, to OOXML, then our readers). CI installs LibreOffice (.ci/run);
 * without it these tests check the MissingComponent error instead (LegacyMissing.test.ts covers
 * the text-only .doc fallback).
 */
import { describe, expect, it } from "vitest"
import { mkdtempSync, readdirSync, rmSync } from "node:fs"
import { join } from "node:path"
import { tmpdir } from "node:os"
import { detectFormat } from "@strata/core"
import { Effect } from "effect"
import { LibreOffice, libreOfficeConfig } from "../src/LibreOffice.ts"
import { buildDocx, buildPptx } from "./fixtures/Builders.ts"
import { readDocument, readFailure } from "./fixtures/ReadDocument.ts"

const installed = Effect.runSync(libreOfficeConfig).binary !== null
/** A fixture converted from its OOXML original by LibreOffice itself. */
const convertWithLibreOffice = (bytes: Uint8Array, options: { format: string; to: string; deadline: number }) =>
  Effect.runPromise(LibreOffice.use((lo) => lo.convert(bytes, options)).pipe(Effect.provide(LibreOffice.layer)))
const deadline = () => Date.now() + 120_000

describe.runIf(installed)("legacy formats with LibreOffice", () => {
  it("reads a .doc: headings, table, text", async () => {
    const doc = await convertWithLibreOffice(await buildDocx(), { format: "docx", to: "doc", deadline: deadline() })
    expect(detectFormat({ bytes: doc })).toBe("doc")
    const out = await readDocument(doc, "doc")
    expect(out.markdown).toContain("# Harbour Survey")
    expect(out.markdown).toContain("**unusually calm**")
    expect(out.markdown).toContain("Morag Sinclair")
    expect(out.markdown).toContain("Measured at noon.")
    // Concurrent conversions queue for LibreOffice slots and each gets its own profile.
    const many = await Promise.all([1, 2, 3].map(() => readDocument(doc, "doc")))
    for (const each of many) expect(each.markdown).toBe(out.markdown)
  })

  it("reads a .ppt: one page per slide with titles", async () => {
    const ppt = await convertWithLibreOffice(await buildPptx(), { format: "pptx", to: "ppt", deadline: deadline() })
    expect(detectFormat({ bytes: ppt })).toBe("ppt")
    const out = await readDocument(ppt, "ppt")
    expect(out.pages).toHaveLength(2)
    expect(out.markdown).toContain("Harbour Survey")
    expect(out.markdown).toContain("Pelican Point and Gannet Rock")
  })

  it("fails cleanly on a broken legacy file and leaves no temporary folders", async () => {
    // A private temporary folder for this conversion alone: other test files convert at the same time.
    const previous = process.env.TMPDIR
    const privateTmp = mkdtempSync(join(tmpdir(), "strata-legacy-test-"))
    process.env.TMPDIR = privateTmp
    try {
      const broken = new Uint8Array(4096)
      broken.set([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1])
      const error = await readFailure(broken, "doc")
      expect(["Corrupt", "Timeout"]).toContain(error.reason._tag)
      expect(readdirSync(privateTmp).filter((n) => n.startsWith("strata-convert-"))).toEqual([])
    } finally {
      if (previous === undefined) delete process.env.TMPDIR
      else process.env.TMPDIR = previous
      rmSync(privateTmp, { recursive: true, force: true })
    }
  })

  it("gives up with Timeout when the deadline is too close", async () => {
    const error = await readFailure(await buildDocx(), "doc", { deadline: Date.now() + 1 })
    expect(error.reason._tag).toBe("Timeout")
  })
})

describe.runIf(!installed)("legacy formats without LibreOffice", () => {
  it("names the missing component", async () => {
    const error = await readFailure(new Uint8Array([0xd0, 0xcf, 0x11, 0xe0]), "ppt")
    expect(error.reason._tag).toBe("MissingComponent")
    expect(error.reason.message).toContain("LibreOffice")
  })
})
