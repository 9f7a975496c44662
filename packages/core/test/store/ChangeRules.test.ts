/**
 * changeTracking's rules: the status from a snapshot and this scrape, whitespace that does not
 * count, the unified diff (a property: applying it to the previous markdown gives the current
 * one, also when the line diff gives up and replaces the whole page) and json mode's per-key values.
 */
import { changeStatus, comparable, jsonChanges, markdownDiff, type PageSnapshot, schemaKeyOf } from "@strata/core"
import { applyPatch } from "diff"
import fc from "fast-check"
import { describe, expect, it } from "vitest"

const snap = (markdown: string, extra: Partial<PageSnapshot> = {}): PageSnapshot => ({ markdown, status: 200, removed: false, scrapedAt: 1, ...extra })

/** Markdown as the diff normalises it (the patch applies to this form). */
const diffable = (text: string) => {
  const lines = text.replace(/\r\n?/g, "\n").split("\n").map((l) => l.replace(/[ \t]+$/, ""))
  while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop()
  return lines.length === 0 ? "" : `${lines.join("\n")}\n`
}

describe("changeStatus", () => {
  it("new, same, changed, removed", () => {
    expect(changeStatus(undefined, { markdown: "a", status: 200 })).toBe("new")
    expect(changeStatus(snap("# Title\n\nText"), { markdown: "# Title\r\n\r\n\r\nText  \n", status: 200 })).toBe("same")
    expect(changeStatus(snap("# Title\n\nText"), { markdown: "# Title\n\nOther text", status: 200 })).toBe("changed")
    expect(changeStatus(snap("a"), { markdown: "Not Found", status: 404 })).toBe("removed")
    expect(changeStatus(undefined, { markdown: "Gone", status: 410 })).toBe("removed")
    // Back after a removal: a change even when the text is what it was.
    expect(changeStatus(snap("a", { removed: true, status: 404 }), { markdown: "a", status: 200 })).toBe("changed")
  })

  it("whitespace never counts, order and words do", () => {
    expect(comparable("a  b\n\n\tc ")).toBe("a b c")
    expect(changeStatus(snap("one two"), { markdown: "two one", status: 200 })).toBe("changed")
    expect(changeStatus(snap("café"), { markdown: "cafe\u0301", status: 200 })).toBe("same")
  })
})

describe("markdownDiff", () => {
  it("is a unified diff with three lines of context", () => {
    const before = ["# Pricing", "", "Basic: $10", "Pro: $20", "", "Contact us"].join("\n")
    const after = ["# Pricing", "", "Basic: $12", "Pro: $20", "", "Contact us"].join("\n")
    expect(markdownDiff(before, after)).toEqual({
      text: [
        "--- previous.md",
        "+++ current.md",
        "@@ -1,6 +1,6 @@",
        " # Pricing",
        " ",
        "-Basic: $10",
        "+Basic: $12",
        " Pro: $20",
        " ",
        " Contact us",
        ""
      ].join("\n")
    })
  })

  it("applies to the previous markdown to give the current one", () => {
    const line = fc.constantFrom("# A", "b", "c", "", "- d", "e f", "  g  ")
    const doc = fc.array(line, { maxLength: 30 }).map((lines) => lines.join("\n"))
    fc.assert(fc.property(doc, doc, (before, after) => {
      const diff = markdownDiff(before, after)
      expect(diff.warning).toBeUndefined()
      expect(applyPatch(diffable(before), diff.text)).toBe(diffable(after))
    }), { numRuns: 200 })
  })

  it("past its edit bound replaces the whole page, says so, and still applies", () => {
    const before = Array.from({ length: 5000 }, (_, i) => `old line ${i}`).join("\n")
    const after = Array.from({ length: 5000 }, (_, i) => `new line ${i}`).join("\n")
    const diff = markdownDiff(before, after)
    expect(diff.warning).toMatch(/replaces the whole page/)
    expect(diff.text.startsWith("--- previous.md\n+++ current.md\n@@ -1,5000 +1,5000 @@\n-old line 0\n")).toBe(true)
    expect(applyPatch(diffable(before), diff.text)).toBe(diffable(after))
    expect(applyPatch("", markdownDiff("", "x\ny").text)).toBe("x\ny\n")
  })
})

describe("json mode", () => {
  const schema = { type: "object", properties: { price: { type: "string" }, plan: { type: "string" } } }

  it("gives previous and current for every key of the schema", () => {
    expect(jsonChanges(schema, { price: "$10", plan: "Basic" }, { price: "$12", plan: "Basic" })).toEqual({
      price: { previous: "$10", current: "$12" },
      plan: { previous: "Basic", current: "Basic" }
    })
    expect(jsonChanges(schema, null, { price: "$12" })).toEqual({
      price: { previous: null, current: "$12" },
      plan: { previous: null, current: null }
    })
  })

  it("a properties map, no schema, and values that are not objects", () => {
    expect(jsonChanges({ title: { type: "string" } }, { title: "a" }, { title: "b" })).toEqual({ title: { previous: "a", current: "b" } })
    expect(jsonChanges(undefined, { a: 1 }, { b: 2 })).toEqual({ a: { previous: 1, current: null }, b: { previous: null, current: 2 } })
    expect(jsonChanges({ type: "array" }, [1], [2])).toEqual({ value: { previous: [1], current: [2] } })
  })

  it("values are compared only under the same schema and prompt, in any key order", () => {
    expect(schemaKeyOf({ schema: { a: 1, b: 2 } })).toBe(schemaKeyOf({ schema: { b: 2, a: 1 } }))
    expect(schemaKeyOf({ schema: { a: 1 } })).not.toBe(schemaKeyOf({ schema: { a: 1 }, prompt: "p" }))
  })
})
