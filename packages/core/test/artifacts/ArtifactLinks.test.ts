/**
 * Properties of artifact links: a signature opens exactly the name and expiry it was made for
 * (any one changed hex digit, other name or other expiry fails), the name parser accepts only
 * the store's own `{32 hex}.{ext}` (so nothing with a separator or a dot segment reaches the
 * disk), and a formatted link parses back to its parts.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { formatLink, parseExpires, parseFileName, parseLink, signLink, verifyLink } from "../../src/artifacts/ArtifactLinks.ts"

const hex32 = fc.uint8Array({ minLength: 16, maxLength: 16 }).map((bytes) => Buffer.from(bytes).toString("hex"))
const fileName = fc.tuple(hex32, fc.constantFrom("png", "jpg", "webp", "pdf")).map(([id, ext]) => `${id}.${ext}`)
const expires = fc.integer({ min: 1, max: 99_999_999_999 })
const secret = fc.uint8Array({ minLength: 16, maxLength: 64 })

describe("artifact links", () => {
  it("a signature verifies for its own name and expiry only", () => {
    fc.assert(fc.property(secret, fileName, expires, fileName, fc.nat(63), (key, name, at, other, digit) => {
      const sig = signLink(key, name, at)
      expect(verifyLink(key, name, at, sig)).toBe(true)
      const flipped = sig.slice(0, digit) + (sig[digit] === "0" ? "1" : "0") + sig.slice(digit + 1)
      expect(verifyLink(key, name, at, flipped)).toBe(false)
      expect(verifyLink(key, name, at + 1, sig)).toBe(false)
      if (other !== name) expect(verifyLink(key, other, at, sig)).toBe(false)
      expect(verifyLink(key, name, at, undefined)).toBe(false)
      expect(verifyLink(key, name, at, sig.slice(0, 63))).toBe(false)
    }))
  })

  it("only the store's own names parse; nothing that could leave the folder does", () => {
    fc.assert(fc.property(fc.string({ unit: "binary", maxLength: 60 }), (name) => {
      const parsed = parseFileName(name)
      if (parsed === undefined) return
      expect(name).toMatch(/^[0-9a-f]{32}\.(png|jpg|webp|pdf)$/)
      expect(name.includes("/") || name.includes("\\") || name.includes("..")).toBe(false)
    }))
    fc.assert(fc.property(fileName, (name) => {
      expect(parseFileName(name)).toBeDefined()
    }))
    for (const name of ["../x.png", `${"a".repeat(32)}.png/`, `${"a".repeat(32)}.PNG`, `${"a".repeat(31)}.png`, `${"a".repeat(32)}.svg`, `${"a".repeat(32)}.html`]) {
      expect(parseFileName(name)).toBeUndefined()
    }
  })

  it("a formatted link parses back to its parts; expiries are plain unix seconds", () => {
    fc.assert(fc.property(fileName, expires, fc.constantFrom("http://127.0.0.1:3002", "https://strata.example.com/", "http://[::1]:8080"), (name, at, base) => {
      const sig = "ab".repeat(32)
      expect(parseLink(formatLink(base, name, at, sig))).toEqual({ fileName: name, expires: String(at), sig })
    }))
    expect(parseExpires("0")).toBeUndefined()
    expect(parseExpires("0123")).toBeUndefined()
    expect(parseExpires("-5")).toBeUndefined()
    expect(parseExpires("1e9")).toBeUndefined()
    expect(parseExpires("1795649000")).toBe(1795649000)
    expect(parseLink("/v2/artifacts/%E0%A4%A?expires=1")).toBeUndefined()
  })
})
