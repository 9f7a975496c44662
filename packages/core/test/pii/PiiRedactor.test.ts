/**
 * redactPII's detectors on the identifiers they must find (valid check digits, real formats) and
 * the look-alikes they must leave (failed checksums, dates, versions, order numbers), the three
 * replace styles, entity buckets, and HTML kept well-formed.
 */
import { describe, expect, it } from "vitest"
import fc from "fast-check"
import { findPii, piiOptions, redactHtmlString, redactString } from "../../src/pii/PiiRedactor.ts"
import { codiceFiscaleValid, luhnValid, ibanValid, verhoeffValid } from "../../src/pii/Checksums.ts"

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
    // An Italian codice fiscale with the structure but a wrong control letter (RSSMRA85T10A562S is valid).
    expect(kinds("Codice fiscale RSSMRA85T10A562T")).toEqual([])
    expect(kinds("Codice fiscale RSSMRA85T10A562S")).toEqual(["NATIONAL_ID:RSSMRA85T10A562S"])
  })

  it("takes phone numbers by their written shape where the plans lag", () => {
    // The North American shape with an area code not (yet) assigned; a 00 that names no country, in national groups.
    expect(kinds("She left (498) 480-2068 for the driver.")).toEqual(["PHONE:(498) 480-2068"])
    expect(kinds("She left 00869 3127724 for the driver.")).toEqual(["PHONE:00869 3127724"])
    // A ZIP code before the number, a whole number in brackets, and a bracketed country code.
    expect(kinds("Houston, TX 77008 713.802.1707")).toEqual(["PHONE:713.802.1707"])
    expect(kinds("Or call 1-800-MY-APPLE (1-800-692-7753).")).toEqual(["PHONE:1-800-692-7753"])
    expect(kinds("Tel : (+1) 650 534-0325")).toEqual(["PHONE:(+1) 650 534-0325"])
  })

  it("leaves the look-alikes of phone numbers that real pages hold", () => {
    for (const text of [
      "Posted 03/03/2026 19:45 by a reader.",
      "Last edited by Trilby (2024-08-06 12:54:32)",
      "Copyright © 2019-2025, the 2025 - 2026 season, forecast (2026-2035).",
      "Price $59.00 (1781 reviews); now €399.99 -20% off.",
      "Scores 0.65 9.52 13.7× faster; cost=0.42..579.09 rows=153.",
      "Auburn, Alabama 36832-4571; charity EIN 52-1263436.",
      "Aadhaar 9086 1127 4579 did not verify; SIN 123 456 789 is not valid.",
      "border: 2px solid rgb(140 140 140); max resolution 7680 x 4320 5120 x 3200",
      "installations from version 10.0.17763.0; rev 2026.3.4.40455",
      "1,702 12 12 silver badges; pages 1 2 3 4 5 6 7 ... 20; bytes 66 61 73 73 61 64 65",
      "512 (256 x 2)-Bit; Nature 521 (7553), 436-44"
    ]) expect(kinds(text).filter((k) => k.startsWith("PHONE"))).toEqual([])
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
    for (const code of ["RSSMRA85T10A562S", "MRTMTT91D08F205J", "BNZVCN32S10E573Z"]) expect(codiceFiscaleValid(code)).toBe(true)
    expect(codiceFiscaleValid("MRTMTT91D08F205K")).toBe(false)
  })
})
