/**
 * The `Accept-Language` a scrape sends for the request's `location`, until a browser engine
 * emulates the location fully (proxy, time zone, navigator.languages).
 *
 * The contract: `languages` in order of preference; without them, "the language of the
 * location". A server that varies by language reads this header, so the country alone
 * becomes its main language in that country's form, the bare language, then English
 * (DE: "de-DE,de;q=0.9,en;q=0.8"), as a browser installed in that country would send.
 */

/** The main language of a country, where it is not English; a small table of the common ones. */
const countryLanguage: Readonly<Record<string, string>> = {
  AE: "ar", AR: "es", AT: "de", BE: "nl", BG: "bg", BO: "es", BR: "pt", BY: "be", CH: "de", CL: "es", CN: "zh", CO: "es",
  CR: "es", CU: "es", CY: "el", CZ: "cs", DE: "de", DK: "da", DO: "es", DZ: "ar", EC: "es", EE: "et", EG: "ar", ES: "es",
  FI: "fi", FR: "fr", GR: "el", GT: "es", HK: "zh", HN: "es", HR: "hr", HU: "hu", ID: "id", IL: "he", IQ: "ar", IR: "fa",
  IS: "is", IT: "it", JO: "ar", JP: "ja", KR: "ko", KW: "ar", KZ: "kk", LB: "ar", LT: "lt", LU: "fr", LV: "lv", MA: "ar",
  MX: "es", MY: "ms", NI: "es", NL: "nl", NO: "nb", PA: "es", PE: "es", PL: "pl", PT: "pt", PY: "es", QA: "ar", RO: "ro",
  RS: "sr", RU: "ru", SA: "ar", SE: "sv", SI: "sl", SK: "sk", SV: "es", TH: "th", TN: "ar", TR: "tr", TW: "zh", UA: "uk",
  UY: "es", VE: "es", VN: "vi"
}

/** What the fetcher sends when nothing says otherwise (a US desktop browser). */
export const DEFAULT_ACCEPT_LANGUAGE = "en-US,en;q=0.9"

// A BCP 47-shaped tag (language, then subtags) or "*": anything else cannot be a header item.
const languageTag = /^(?:[A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*|\*)$/

/** "a,b;q=0.9,c;q=0.8": weights fall by 0.1 per place and stay at 0.1 after that. */
const weighted = (tags: ReadonlyArray<string>): string =>
  tags.map((tag, i) => (i === 0 ? tag : `${tag};q=${Math.max(1, 10 - i) / 10}`)).join(",")

const unique = (tags: ReadonlyArray<string>): Array<string> => {
  const seen = new Set<string>()
  return tags.filter((tag) => {
    const key = tag.toLowerCase()
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}

/** The default list for a country: its language in the country's form, the bare language, then English. */
const forCountry = (country: string): string => {
  const code = country.toUpperCase()
  if (!/^[A-Z]{2}$/.test(code)) return DEFAULT_ACCEPT_LANGUAGE
  const language = countryLanguage[code] ?? "en"
  return weighted(unique([`${language}-${code}`, language, "en"]))
}

export interface Location {
  readonly country: string
  readonly languages?: ReadonlyArray<string> | undefined
}

/**
 * The header value for a location: its `languages` (malformed entries dropped, duplicates
 * once) weighted in order, or the country's default list when none is usable.
 */
export const acceptLanguageFor = (location: Location): string => {
  const tags = unique((location.languages ?? []).map((l) => l.trim()).filter((l) => languageTag.test(l)))
  return tags.length > 0 ? weighted(tags) : forCountry(location.country)
}
