/**
 * Thrown values become reasons in our words: real stack overflows and allocation failures are
 * limits, anything else is damage, and the thrown text never appears in the message.
 */
import { describe, expect, it } from "vitest"
import { Corrupt, DocumentError, LimitExceeded } from "../src/DocumentReader.ts"
import { readFailure, thrownKind, thrownReason } from "../src/ReadFailure.ts"

const caught = (run: () => unknown): unknown => {
  try {
    run()
  } catch (error) {
    return error
  }
  throw new Error("expected a throw")
}

const recurse = (n: number): number => recurse(n + 1) + 1

describe("thrownKind", () => {
  it("sorts what V8 and Node really throw", () => {
    expect(thrownKind(caught(() => recurse(0)))).toBe("nesting")
    expect(thrownKind(caught(() => Math.max(...Array.from({ length: 500_000 }, () => 1))))).toBe("nesting")
    expect(thrownKind(caught(() => "a".repeat(0x1fffffe8 + 1)))).toBe("size")
    expect(thrownKind(caught(() => new Uint8Array(-1)))).toBe("size")
    expect(thrownKind(new RangeError("Cannot create a string longer than 0x1fffffe8 characters"))).toBe("size")
    expect(thrownKind(Object.assign(new Error("too big"), { code: "ERR_BUFFER_TOO_LARGE" }))).toBe("size")
    expect(thrownKind(caught(() => (undefined as unknown as { x: number }).x))).toBe("other")
    expect(thrownKind("Maximum call stack size exceeded")).toBe("nesting")
    expect(thrownKind("Worker terminated due to reaching memory limit: JS heap out of memory")).toBe("size")
    expect(thrownKind(42)).toBe("other")
  })
})

describe("thrownReason and readFailure", () => {
  it("words each kind about the thing read, never with the thrown text", () => {
    const overflow = thrownReason(caught(() => recurse(0)))
    expect(overflow).toBeInstanceOf(LimitExceeded)
    expect(overflow.message).toBe("the document nests elements too deeply to read")
    const size = thrownReason(new RangeError("Cannot create a string longer than 0x1fffffe8 characters"), "page 4")
    expect(size).toBeInstanceOf(LimitExceeded)
    expect(size.message).toBe("page 4's text is too large to read")
    const other = thrownReason(new TypeError("Cannot read properties of undefined (reading 'children')"))
    expect(other).toBeInstanceOf(Corrupt)
    expect(other.message).toBe("the document is damaged and could not be read")
  })

  it("passes a DocumentError through and builds one with format and page otherwise", () => {
    const own = new DocumentError({ format: "docx", reason: new Corrupt({ message: "no main document part" }) })
    expect(readFailure("xlsx", own)).toBe(own)
    const built = readFailure("xlsx", new Error("Maximum call stack size exceeded"), 3)
    expect(built.reason._tag).toBe("LimitExceeded")
    expect(built.page).toBe(3)
    expect(built.message).toBe("xlsx: the document nests elements too deeply to read")
  })
})
