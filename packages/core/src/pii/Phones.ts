/**
 * Phone numbers, validated by libphonenumber (Google's number plans, through libphonenumber-js's
 * full metadata): a run of digits shaped like a phone number is taken only when it is a valid
 * number, international (+44 ..., 0044 ...) or national in one of a few countries' plans. A bare
 * run of digits (no +, brackets, spaces or dashes) is taken only with a word such as "phone" or
 * "tel" before it, outside aggressive mode: order numbers and timestamps are valid numbers of
 * some plan more often than not. Dates and IP addresses are never phone numbers.
 *
 * Candidates are found with one pattern and parsed one by one: libphonenumber's own text search,
 * run once per country, took ~350 ms on 20 KB of contact details; this takes under 2 ms.
 */
import { isIPv4 } from "node:net"
import { type CountryCode, parsePhoneNumberFromString } from "libphonenumber-js/max"
import type { PiiMode, PiiSpan } from "./Spans.ts"

/** National ways of writing tried, besides international numbers. */
const COUNTRIES: ReadonlyArray<CountryCode> = ["US", "GB", "DE", "FR", "IN", "AU", "ES", "IT", "NL", "BR"]
const PHONE_WORDS = /\b(?:phone|tel|telephone|mobile|mob|cell|fax|call|dial|ring|text|sms|reach|reached|whatsapp|contact|ph|t|m|téléphone|telefon|teléfono|telefono)\b\.?\s*(?:[:.]|on|at|us on|us at)?\s*$/i
const CANDIDATE = /(?<![\p{L}\p{N}+@/.\-])(?:\+|00)?\(?\d[\d ().\-/]{5,22}\d(?:\s?(?:ext\.?|x)\s?\d{1,5})?(?![\p{L}\p{N}]|[.\-/]\d)/gu
/** Dates, and the US SSN's own shape, are never written as phone numbers. */
const DATE_LIKE = /^(?:\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4}|\d{3}-\d{2}-\d{4})$/
/** One dot between two runs of digits is a decimal or an identifier (arXiv's 2512.16245), not a phone. */
const DECIMAL = /^\d+\.\d+$/
/**
 * A national number written the way people write one: the trunk prefix 0 and an area code,
 * bracketed or set apart, then groups of digits ("04781 685102", "(020) 7946 0000"). Written so,
 * a number of a possible length for a country is taken even when its range is not in the plan;
 * the plans lag behind real allocations, and random-looking national numbers are common.
 */
const TRUNK_GROUPED = /^(?:\(0\d{1,5}\)\s?|0\d{1,5}[ \-/])\d{2,}(?:[ \-]\d{2,})*$/

const validIn = (written: string, mode: PiiMode, named: boolean): boolean => {
  const international = /^(?:\+|00)/.test(written)
  // A leading + (or 00) says "phone number" by itself: a number of the right length for its
  // country is taken even when its range is not (yet) in the plan.
  if (international) {
    const parsed = parsePhoneNumberFromString(written.replace(/^00/, "+"))
    return parsed !== undefined && (parsed.isValid() || (written.startsWith("+") && parsed.isPossible()))
  }
  const countries = mode === "fast" ? COUNTRIES.slice(0, 3) : COUNTRIES
  // With a word such as "call" or "tel" before it, or written with a trunk prefix and groups, a
  // number of a possible length is enough.
  const possibleEnough = named || (mode !== "fast" && TRUNK_GROUPED.test(written))
  return countries.some((country) => {
    const parsed = parsePhoneNumberFromString(written, country)
    return parsed !== undefined && (parsed.isValid() || (possibleEnough && parsed.isPossible()))
  })
}

export const phones = (text: string, mode: PiiMode, out: Array<PiiSpan>): void => {
  CANDIDATE.lastIndex = 0
  for (let m = CANDIDATE.exec(text); m !== null; m = CANDIDATE.exec(text)) {
    // A closing bracket the number did not open belongs to the sentence.
    let written = m[0]
    if (written.endsWith(")") && !written.includes("(")) written = written.slice(0, -1)
    const digits = written.replace(/\D/g, "").length
    if (digits < 7 || digits > 15 || DATE_LIKE.test(written) || DECIMAL.test(written) || isIPv4(written)) continue
    const formatted = /[+()\s.-]/.test(written)
    const named = PHONE_WORDS.test(text.slice(Math.max(0, m.index - 20), m.index))
    if (!formatted && mode !== "aggressive" && !named) continue
    if (validIn(written, mode, named)) out.push({ start: m.index, end: m.index + written.length, kind: "PHONE" })
  }
}
