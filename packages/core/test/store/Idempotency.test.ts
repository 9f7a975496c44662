/**
 * Canonical JSON and the hashes built on it: key order never matters, anything else does
 * (properties with fast-check), and charge ids separate teams and request ids.
 */
import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import { canonicalJson, chargeIdFor, paramsHash } from "../../src/store/Idempotency.ts"

/** The same object with its keys in reverse order, at every level. */
const reversed = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(reversed)
    : value !== null && typeof value === "object"
    ? Object.fromEntries(Object.entries(value).reverse().map(([key, item]) => [key, reversed(item)]))
    : value

describe("canonical JSON", () => {
  it("does not depend on key order, and reads back as the same value", () => {
    fc.assert(fc.property(fc.jsonValue(), (value) => {
      const text = canonicalJson(value)
      assert.strictEqual(canonicalJson(reversed(value)), text)
      assert.deepStrictEqual(JSON.parse(text), JSON.parse(JSON.stringify(value)))
    }))
  })

  it("sorts keys at every level", () => {
    assert.strictEqual(canonicalJson({ b: 1, a: { d: [{ z: 1, y: 2 }], c: null } }), `{"a":{"c":null,"d":[{"y":2,"z":1}]},"b":1}`)
  })
})

describe("paramsHash and chargeIdFor", () => {
  it("hash the same parameters alike and different ones apart", () => {
    assert.strictEqual(paramsHash({ calls: [{ provider: "p", capability: "c" }], timeout: 1 }), paramsHash({ timeout: 1, calls: [{ capability: "c", provider: "p" }] }))
    assert.notStrictEqual(paramsHash({ timeout: 1 }), paramsHash({ timeout: 2 }))
    assert.notStrictEqual(paramsHash([1, 2]), paramsHash([2, 1]))
    assert.match(paramsHash({}), /^[0-9a-f]{64}$/)
  })

  it("name one charge per team and request id", () => {
    assert.strictEqual(chargeIdFor("acme", "r1"), chargeIdFor("acme", "r1"))
    assert.notStrictEqual(chargeIdFor("acme", "r1"), chargeIdFor("acme", "r2"))
    assert.notStrictEqual(chargeIdFor("acme", "r1"), chargeIdFor("other", "r1"))
    // No joining of strings: a team and id that concatenate alike stay apart.
    assert.notStrictEqual(chargeIdFor("ab", "c"), chargeIdFor("a", "bc"))
  })
})
