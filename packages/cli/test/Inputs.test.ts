/** Finding a batch's documents: glob roots, the common root of several targets, extension filter. */
import { describe, expect, it } from "vitest"
import { mkdir, mkdtemp, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { commonRoot, findInputs, globBase, isGlob, isSupported } from "../src/Inputs.ts"

describe("Inputs", () => {
  it("takes a glob's fixed leading directories as its root", () => {
    expect(globBase("docs/**/*.pdf")).toBe("docs")
    expect(globBase("/data/in/*.{pdf,docx}")).toBe("/data/in")
    expect(globBase("*.pdf")).toBe(".")
    expect(isGlob("a/[ab].pdf")).toBe(true)
    expect(isGlob("a/b.pdf")).toBe(false)
  })

  it("finds the deepest common directory", () => {
    expect(commonRoot(["/a/b/c", "/a/b/d/e"])).toBe("/a/b")
    expect(commonRoot(["/a", "/b"])).toBe("/")
  })

  it("keeps supported extensions in directories, any file named explicitly, and nothing under --out", async () => {
    const root = await mkdtemp(join(tmpdir(), "strata-inputs-"))
    await mkdir(join(root, "x", "out"), { recursive: true })
    await writeFile(join(root, "x", "A.PDF"), "")
    await writeFile(join(root, "x", "skip.txt"), "")
    await writeFile(join(root, "x", "out", "old.csv"), "")
    await writeFile(join(root, "y.txt"), "")
    const inputs = await findInputs([join(root, "x"), join(root, "y.txt")], join(root, "x", "out"))
    expect(inputs.map((i) => i.relative)).toEqual(["x/A.PDF", "y.txt"])
    expect(isSupported("deck.PPTX")).toBe(true)
  })
})
