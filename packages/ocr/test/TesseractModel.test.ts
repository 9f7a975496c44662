/** Which weights tesseract reads with: the network spec read from real traineddata files, and where each choice looks. */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { gunzipSync } from "node:zlib"
import { afterAll, describe, expect, it } from "vitest"
import { debianTessdataDir, isFastNetwork, networkSpec, npmLangPath, resolveModel } from "../src/TesseractModel.ts"

const bestInt = gunzipSync(readFileSync(join(npmLangPath("best_int"), "eng.traineddata.gz")))
const scratch = mkdtempSync(join(tmpdir(), "strata-tessdata-test-"))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

/** A tessdata folder holding `bytes` as eng.traineddata. */
const folder = (name: string, bytes: Uint8Array): string => {
  const dir = join(scratch, name)
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, "eng.traineddata"), bytes)
  return dir
}

describe("networkSpec", () => {
  it("reads the LSTM's network from the npm best_int file: 512 cells last, not fast", () => {
    const spec = networkSpec(bestInt)
    expect(spec).toBe("[1,36,0,1Ct3,3,16Mp3,3Lfys64Lfx96Lrx96Lfx512O1c1]")
    expect(isFastNetwork(spec!)).toBe(false)
  })

  it("tells tessdata_fast's English network (192 cells last) from best's", () => {
    expect(isFastNetwork("[1,36,0,1Ct3,3,16Mp3,3Lfys48Lfx96Lrx96Lfx192O1c1]")).toBe(true)
    expect(isFastNetwork("[1,36,0,1Ct3,3,16Mp3,3Lfys64Lfx96Lrx96Lfx384O1c1]")).toBe(false)
  })

  it("finds nothing in what is not a traineddata file", () => {
    expect(networkSpec(new Uint8Array(0))).toBeUndefined()
    expect(networkSpec(new TextEncoder().encode("[1,36,0,1Ct3,3,16Mp3,3Lfys48Lfx96Lrx96Lfx192O1c1]"))).toBeUndefined()
    expect(networkSpec(bestInt.subarray(0, 200))).toBeUndefined()
  })
})

describe("resolveModel", () => {
  it("names a folder's file by its network, not by where it lies", () => {
    const model = resolveModel({ tessdataDir: folder("best", bestInt) })
    expect(model).toMatchObject({ name: "best", gzip: false, network: "[1,36,0,1Ct3,3,16Mp3,3Lfys64Lfx96Lrx96Lfx512O1c1]" })
    expect(() => resolveModel({ model: "fast", tessdataDir: folder("best", bestInt) })).toThrow(/not a fast model/)
  })

  it("reports a named folder without the file instead of falling back", () => {
    const empty = join(scratch, "empty")
    mkdirSync(empty, { recursive: true })
    expect(() => resolveModel({ tessdataDir: empty })).toThrow(/no eng.traineddata/)
    expect(() => resolveModel({ tessdataDir: folder("junk", new Uint8Array(64)) })).toThrow(/no LSTM model/)
  })

  it("best_int and the legacy recogniser read the npm package's gzipped files", () => {
    expect(resolveModel({ model: "best_int" })).toMatchObject({ name: "best_int", gzip: true, langPath: npmLangPath("best_int") })
    expect(resolveModel({ legacy: true, model: "fast" })).toMatchObject({ name: "standard", langPath: npmLangPath("standard") })
  })

  it("auto takes best_int unless a folder is named; fast takes Debian's tessdata_fast when it is installed", () => {
    const debian = debianTessdataDir()
    expect(resolveModel()).toMatchObject({ name: "best_int", gzip: true, langPath: npmLangPath("best_int") })
    if (debian === undefined) {
      expect(() => resolveModel({ model: "fast" })).toThrow(/tesseract-ocr-eng/)
    } else {
      const model = resolveModel({ model: "fast" })
      expect(model).toMatchObject({ name: "fast", langPath: debian, gzip: false })
      expect(model.network).toBe("[1,36,0,1Ct3,3,16Mp3,3Lfys48Lfx96Lrx96Lfx192O1c1]")
    }
  })

  it("looks in the newest version folder of a Debian-style tree that holds the file", () => {
    const root = join(scratch, "share")
    folder("share/4.00/tessdata", bestInt)
    folder("share/5/tessdata", bestInt)
    mkdirSync(join(root, "6/tessdata"), { recursive: true })
    expect(debianTessdataDir(root)).toBe(join(root, "5/tessdata"))
    expect(debianTessdataDir(join(scratch, "missing"))).toBeUndefined()
  })
})
