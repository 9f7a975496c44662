/** The Accept-Language of a request's location: given languages in order, or the country's default list. */
import { describe, expect, it } from "vitest"
import fc from "fast-check"
import { acceptLanguageFor, DEFAULT_ACCEPT_LANGUAGE } from "../../src/fetch/AcceptLanguage.ts"
import { mergeRequestHeaders } from "../../src/fetch/RequestHeaders.ts"

describe("acceptLanguageFor", () => {
  it("weights the given languages in order of preference", () => {
    expect(acceptLanguageFor({ country: "US", languages: ["de-DE", "en"] })).toBe("de-DE,en;q=0.9")
    expect(acceptLanguageFor({ country: "FR", languages: ["fr-CA", "fr", "en-GB", "en"] })).toBe("fr-CA,fr;q=0.9,en-GB;q=0.8,en;q=0.7")
  })

  it("derives the list from the country alone: its language in the country's form, the bare language, English", () => {
    expect(acceptLanguageFor({ country: "DE" })).toBe("de-DE,de;q=0.9,en;q=0.8")
    expect(acceptLanguageFor({ country: "JP" })).toBe("ja-JP,ja;q=0.9,en;q=0.8")
    expect(acceptLanguageFor({ country: "BR", languages: [] })).toBe("pt-BR,pt;q=0.9,en;q=0.8")
    expect(acceptLanguageFor({ country: "GB" })).toBe("en-GB,en;q=0.9")
    expect(acceptLanguageFor({ country: "US" })).toBe(DEFAULT_ACCEPT_LANGUAGE)
  })

  it("drops entries that are no language tag and repeats, falling back to the country", () => {
    expect(acceptLanguageFor({ country: "IT", languages: ["it\r\nX-Evil: 1", " it ", "IT", "", "en;q=1"] })).toBe("it")
    expect(acceptLanguageFor({ country: "IT", languages: ["\u{1F600}"] })).toBe("it-IT,it;q=0.9,en;q=0.8")
  })

  it("always yields a value HTTP can carry, with weights that never reach zero", () => {
    fc.assert(fc.property(fc.string({ maxLength: 3 }), fc.array(fc.string(), { maxLength: 15 }), (country, languages) => {
      const value = acceptLanguageFor({ country, languages })
      expect(value).toMatch(/^[\x21-\x7e]+$/)
      expect(value).not.toMatch(/q=0(?:\.0)?(?:,|$)/)
    }))
  })
})

describe("mergeRequestHeaders with a location", () => {
  it("uses the location's languages unless the caller set Accept-Language", () => {
    expect(mergeRequestHeaders(undefined, { country: "DE" })["accept-language"]).toBe("de-DE,de;q=0.9,en;q=0.8")
    expect(mergeRequestHeaders({ "Accept-Language": "fi" }, { country: "DE" })["accept-language"]).toBe("fi")
    expect(mergeRequestHeaders(undefined)["accept-language"]).toBe(DEFAULT_ACCEPT_LANGUAGE)
  })
})
