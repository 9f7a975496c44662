/**
 * redactPII's detectors on the identifiers they must find (valid check digits, real formats) and
 * the look-alikes they must leave (failed checksums, dates, versions, order numbers), the three
 * replace styles, entity buckets, and HTML kept well-formed.
 */
import { describe, expect, it } from "vitest"
import fc from "fast-check"
import { findPii, piiOptions, redactHtmlString, redactString } from "../../src/pii/PiiRedactor.ts"
import { luhnValid, ibanValid, verhoeffValid } from "../../src/pii/Checksums.ts"

const accurate = piiOptions({ mode: "accurate", replaceStyle: "tag" })
const kinds = (text: string, options = accurate) => findPii(text, options).map((s) => `${s.kind}:${text.slice(s.start, s.end)}`)

describe("PII detectors", () => {
  it("finds what check digits and formats prove", () => {
    expect(kinds("Mail jane.doe+news@mail.example.co.uk today.")).toEqual(["EMAIL:jane.doe+news@mail.example.co.uk"])
    expect(kinds("Card 4111 1111 1111 1111 and 378282246310005.")).toEqual(["CREDIT_CARD:4111 1111 1111 1111", "CREDIT_CARD:378282246310005"])
    expect(kinds("IBAN DE89 3704 0044 0532 0130 00 BIC COBADEFFXXX")).toEqual(["IBAN:DE89 3704 0044 0532 0130 00"])
    expect(kinds("GB82WEST12345698765432.")).toEqual(["IBAN:GB82WEST12345698765432"])
    expect(kinds("SSN: 123-45-6789")).toEqual(["US_SSN:123-45-6789"])
    expect(kinds("hosts 10.0.0.1 and 2001:db8::ff00:42:8329")).toEqual(["IP_ADDRESS:10.0.0.1", "IP_ADDRESS:2001:db8::ff00:42:8329"])
    expect(kinds("Call +44 20 7946 0958 or (415) 555-0132.")).toEqual(["PHONE:+44 20 7946 0958", "PHONE:(415) 555-0132"])
    // No word such as "call" before it, and a range the plans do not list: the trunk prefix and groups decide.
    expect(kinds("She left 04781 685102 for the driver.")).toEqual(["PHONE:04781 685102"])
    expect(kinds("git clone https://alice:t0ps3cret@git.example.com/repo")).toEqual(["CREDENTIALS:alice:t0ps3cret"])
    expect(kinds("AWS key AKIAIOSFODNN7EXAMPLE")).toEqual(["API_KEY:AKIAIOSFODNN7EXAMPLE"])
    expect(kinds("Date of birth: 14/02/1987")).toEqual(["DATE_OF_BIRTH:14/02/1987"])
    expect(kinds("DNI 12345678Z")).toEqual(["NATIONAL_ID:12345678Z"])
  })

  it("leaves look-alikes that fail their check or lack their evidence", () => {
    expect(kinds("Card 4111 1111 1111 1112.")).toEqual([]) // Luhn fails
    expect(kinds("DE89 3704 0044 0532 0130 01")).toEqual([]) // mod 97 fails
    expect(kinds("SSN 000-12-3456, 666-12-3456")).toEqual([])
    expect(kinds("Released 2024-01-05 at 12:30:45, version 1.2.3.4.")).toEqual([])
    expect(kinds("Order 4155550132 shipped; tracking 1Z999AA10123456784.")).toEqual([])
    expect(kinds("See arXiv:2512.16245 and the ratio 4155550.132.")).toEqual([])
    expect(kinds("The Grace Church and Jordan River are big; Will Power matters.")).toEqual([])
    expect(kinds("password: required")).toEqual([])
  })

  it("finds names and street addresses in accurate mode, not in fast mode", () => {
    const text = "Contact Jane Doe or Dr. Keller at 221B Baker Street, London NW1 6XE, or Hauptstraße 5, 10115 Berlin."
    expect(kinds(text)).toEqual([
      "PERSON:Jane Doe",
      "PERSON:Keller",
      "ADDRESS:221B Baker Street, London NW1 6XE",
      "ADDRESS:Hauptstraße 5, 10115 Berlin"
    ])
    expect(kinds(text, piiOptions({ mode: "fast", replaceStyle: "tag" }))).toEqual([])
  })

  it("rewrites by style and keeps only the buckets asked for", () => {
    const text = "Jane Doe: jane@example.com, +1 415 555 0132"
    expect(redactString(text, accurate)).toBe("<PERSON>: <EMAIL>, <PHONE>")
    expect(redactString(text, piiOptions({ mode: "accurate", replaceStyle: "mask" }))).toBe("********: ****************, ***************")
    expect(redactString(text, piiOptions({ mode: "accurate", replaceStyle: "remove" }))).toBe(": , ")
    expect(redactString(text, piiOptions({ mode: "accurate", replaceStyle: "tag", entities: ["EMAIL"] }))).toBe("Jane Doe: <EMAIL>, +1 415 555 0132")
  })

  it("keeps HTML well formed: text and attribute values, never markup", () => {
    const html = `<p class="x">Write to <a href="mailto:jane@example.com">jane@example.com</a></p>`
    expect(redactHtmlString(html, accurate)).toBe(`<p class="x">Write to <a href="mailto:****************">&lt;EMAIL&gt;</a></p>`)
  })

  it("never leaves a valid card or e-mail behind, and leaves text without PII as it was", () => {
    const cardArb = fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 14, maxLength: 14 }).map((digits) => {
      const body = `4${digits.join("")}`
      for (let check = 0; check <= 9; check++) if (luhnValid(body + check)) return body + check
      return body + "0"
    })
    const word = fc.constantFrom("the", "report", "shows", "growth", "of", "sales", "in", "March", "quarter", "numbers")
    fc.assert(fc.property(fc.array(word, { maxLength: 30 }), cardArb, fc.emailAddress(), (words, card, email) => {
      const plain = words.join(" ")
      expect(redactString(plain, accurate)).toBe(plain)
      const text = `${plain} card ${card} mail ${email} end`
      const out = redactString(text, accurate)
      expect(out).not.toContain(card)
      expect(out).not.toContain(email)
    }), { numRuns: 200 })
  })

  it("check digits", () => {
    expect(luhnValid("79927398713")).toBe(true)
    expect(luhnValid("79927398710")).toBe(false)
    expect(ibanValid("GB82WEST12345698765432")).toBe(true)
    expect(verhoeffValid("2363")).toBe(true)
  })
})
