/** Without LibreOffice, .doc and .ppt fail with MissingComponent naming it (the binary is pointed at a path that does not exist). */
import { describe, expect, it } from "vitest"
import { readFailure } from "./fixtures/ReadDocument.ts"

describe("legacy formats when LibreOffice is absent", () => {
  it("fails with MissingComponent for .doc and .ppt", async () => {
    process.env.STRATA_SOFFICE = "/nonexistent/soffice"
    for (const format of ["doc", "ppt"] as const) {
      const error = await readFailure(new Uint8Array([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]), format)
      expect(error.reason._tag).toBe("MissingComponent")
      if (error.reason._tag === "MissingComponent") expect(error.reason.component).toBe("LibreOffice")
    }
  })
})
