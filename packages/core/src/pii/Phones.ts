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
const CANDIDATE = /(?<![\p{L}\p{N}+@/.-])(?:\+|00)?\(?\d[\d ().\-/]{5,22}\d(?:\s?(?:ext\.?|x)\s?\d{1,5})?(?![\p{L}\p{N}]|[.\-/]\d)/gu
/** Dates, and the US SSN's own shape, are never written as phone numbers. */
const DATE_LIKE = /^(?:\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4}|\d{3}-\d{2}-\d{4})$/
/**
 * A date with slashes or dashes anywhere in the run ("03/03/2026 19" before ":45", "#1
 * 2024-08-03 10", "(157) 28/11/2025"): the run is a date and what stands next to it. Dots are
 * left out, as French numbers are written 01.23.45.67.89.
 */
const HOLDS_DATE = /(?<!\d)(?:(?:19|20)\d{2}([-/])(?:0?[1-9]|1[0-2])\1(?:0?[1-9]|[12]\d|3[01])|(?:0?[1-9]|[12]\d|3[01])([-/])(?:0?[1-9]|[12]\d|3[01])\2(?:19|20)?\d{2})(?!\d)/
/** A range of years ("2019-2025", "(2026 - 2035)"), or a run led by a year and a gap ("2025 95 15 12"). */
const YEARS = /^\(?(?:19|20)\d{2}(?:\s?[-–]\s?(?:19|20)\d{2}\)?$|[\s-])/
/**
 * A decimal in the run, one dot between two runs of digits that no other dot continues: prices,
 * scores and identifiers ("300.00 (21", "0.65 9.52 13.7", arXiv's 2512.16245). A number written
 * with dots has them all through (303.770.2526, 01.23.45.67.89). Two dots are a range (0.42..579.09).
 */
const HOLDS_DECIMAL = /(?<![\d.])\d+\.\d+(?![\d.])/
/** ZIP+4 (36832-4571) and the US employer id (52-1263436): other numbers' shapes, a phone only when called one. */
const OTHER_SHAPES = /^(?:\d{5}-\d{4}|\d{2}-\d{7})$/
/**
 * A word naming another kind of number just before the run, on its line (postcodes, tax and
 * national ids, order, invoice and account numbers): what follows it is that number, whatever
 * libphonenumber makes of its digits, unless a word such as "tel" stands closer.
 */
const OTHER_NUMBER_WORDS = /\b(?:zip(?:\s?code)?|post(?:al)?\s?code|postcode|ein|tin|vat(?:-id)?|tax\s?(?:id|code|number)|charity\s?(?:id|number)|ssn|sin|social\s(?:security|insurance)(?:\snumber)?|aadhaar|aadhar|bsn|burgerservicenummer|dni|nie|nir|s[ée]curit[ée]\ssociale|codice\sfiscale|ni\snumber|national\sinsurance(?:\snumber)?|isbn|issn|order|invoice|account|acct|iban|ref|reference|serial|sku|item|model|ticket|iso|iec|din|astm|rfc)\b\.?[ \t]*(?:no\.?|number|nr\.?|n°|#|id)?[ \t]*[:#]?[ \t]*$/i
/**
 * A national number written the way people write one: the trunk prefix 0 and an area code,
 * bracketed or set apart, then groups of digits ("04781 685102", "(020) 7946 0000"). Written so,
 * a number of a possible length for a country is taken even when its range is not in the plan;
 * the plans lag behind real allocations, and random-looking national numbers are common.
 */
const TRUNK_GROUPED = /^(?:\(0\d{1,5}\)\s?|0\d{1,5}[ \-/])\d{2,}(?:[ -]\d{2,})*$/
/**
 * The North American plan's own shape, (NPA) NXX-XXXX or NPA-NXX-XXXX, with its rules (area code
 * and exchange start 2-9): written so, a number of a possible length is taken even when its area
 * code is not assigned ("(498) 480-2068"), as with the trunk-grouped numbers above.
 */
const NANP_SHAPED = /^(?:\+?1[ .-]?)?(?:\([2-9]\d{2}\)\s?|[2-9]\d{2}[-.])[2-9]\d{2}[-.]\d{4}(?:\s?(?:ext\.?|x)\s?\d{1,5})?$/

const possibleIn = (written: string, countries: ReadonlyArray<CountryCode>): boolean =>
  countries.some((country) => parsePhoneNumberFromString(written, country)?.isPossible() === true)

const validIn = (written: string, mode: PiiMode, named: boolean): boolean => {
  const countries = mode === "fast" ? COUNTRIES.slice(0, 3) : COUNTRIES
  // A leading + (or 00) says "phone number" by itself: a number of the right length for its
  // country is taken even when its range is not (yet) in the plan.
  if (/^(?:\+|00)/.test(written)) {
    const parsed = parsePhoneNumberFromString(written.replace(/^00/, "+"))
    if (parsed !== undefined && (parsed.isValid() || (written.startsWith("+") && parsed.isPossible()))) return true
    // "00869 3127724": a 00 that reads as no valid number, written in national groups (a 0-led
    // area group set apart), is read as the trunk 0 and an area group, its length checked without the first 0.
    return written.startsWith("00") && mode !== "fast" && TRUNK_GROUPED.test(written) && possibleIn(written.slice(1), countries)
  }
  if (mode !== "fast" && NANP_SHAPED.test(written) && possibleIn(written, ["US"])) return true
  // With a word such as "call" or "tel" before it, or written with a trunk prefix and groups, a
  // number of a possible length is enough.
  const possibleEnough = named || (mode !== "fast" && TRUNK_GROUPED.test(written))
  return countries.some((country) => {
    const parsed = parsePhoneNumberFromString(written, country)
    return parsed !== undefined && (parsed.isValid() || (possibleEnough && parsed.isPossible()))
  })
}

/**
 * Groups no phone number is written in: brackets that hold anything but an area code, a trunk
 * or a country code ("(256 x 2", "521 (7553"; "(+44) 0844 ..." is one); a group of one digit after the first ("1 2 3 4 5", "2 - 5 6 - 10");
 * only groups of one or two digits without a leading 0 ("36 60 96 36", hex bytes); dotted groups
 * of one digit (versions: 10.0.17763.0, 2026.3.4.40455).
 */
const badGroups = (written: string): boolean => {
  if (/[()]/.test(written.replace(/^(\+\d{1,4})\)/, "$1").replace(/\(\d{1,5}\)/g, ""))) return true
  const international = /^(?:\+|00)/.test(written)
  const groups = written.replace(/\s?(?:ext\.?|x)\s?\d{1,5}$/, "").split(/[\s().\-/]+/).filter((g) => g.length > 0)
  if (!international && groups.slice(1).some((g) => g.length === 1 && g !== "0")) return true
  if (!international && groups.length >= 3 && groups.every((g) => g.length <= 2) && !groups[0].startsWith("0")) return true
  return /\.\d(?:\.|$)/.test(written)
}

/** Whether the run is some other number, read from its shape and what stands around it. */
const otherNumber = (text: string, written: string, start: number, named: boolean): boolean => {
  if (DATE_LIKE.test(written) || HOLDS_DATE.test(written) || HOLDS_DECIMAL.test(written) || written.includes("..") || isIPv4(written) || badGroups(written)) return true
  // A function's arguments (rgb(140 140 140)), or a dimension (7680 x 4320).
  if (/(?:\p{L}\(|\d\s?[x×]\s?)$/u.test(text.slice(Math.max(0, start - 4), start))) return true
  if (!/^(?:\+|00)/.test(written) && YEARS.test(written)) return true
  if (CURRENCY_BEFORE.test(text.slice(Math.max(0, start - 2), start)) || text[start + written.length] === "%") return true
  return !named && (OTHER_SHAPES.test(written) || OTHER_NUMBER_WORDS.test(text.slice(Math.max(0, start - 40), start)))
}
/** A price ($, €, £, ¥ before it) is not a phone, nor is a share (% after it). */
const CURRENCY_BEFORE = /[$€£¥]\s?$/

export const phones = (text: string, mode: PiiMode, out: Array<PiiSpan>): void => {
  CANDIDATE.lastIndex = 0
  for (let m = CANDIDATE.exec(text); m !== null; m = CANDIDATE.exec(text)) {
    // Digits after "1,702 " are the rest of a number written with thousands separators, and
    // digits after a code of letters and digits ("2 68 06 2A 099 225 96") the rest of that code.
    const before = text.slice(Math.max(0, m.index - 12), m.index)
    if (/\d,$/.test(before) || /(?:^|\s)\d+ (?=[\p{L}\p{N}]*\p{L})(?=[\p{L}\p{N}]*\p{N})[\p{L}\p{N}]{2,3} $/u.test(before)) continue
    // A closing bracket the number did not open belongs to the sentence.
    let written = m[0]
    if (written.endsWith(")") && !written.includes("(")) written = written.slice(0, -1)
    // A clock time after the run ("03/03/2026 19:45"): its hour is not part of the number.
    if (/^:\d/.test(text.slice(m.index + written.length, m.index + written.length + 2))) written = written.replace(/[\s(.\-/]*\d+$/, "")
    // A whole number in brackets ("(1-833-852-6262)"), and a ZIP code before a number in the
    // North American shape ("92866 (714) 997-6815"): the number starts after them.
    let start = m.index
    const lead = /^\((?=[^)]*$)|^\d{4,}\s+(?=\(?[2-9]\d{2}\)?[\s.-]?[2-9]\d{2}[.-]\d{4}$)/.exec(written)?.[0].length ?? 0
    start += lead
    written = written.slice(lead)
    const digits = written.replace(/\D/g, "").length
    if (digits < 7 || digits > 15) continue
    const formatted = /[+()\s.-]/.test(written)
    const named = PHONE_WORDS.test(text.slice(Math.max(0, start - 20), start))
    if (!formatted && mode !== "aggressive" && !named) continue
    if (otherNumber(text, written, start, named) || !validIn(written, mode, named)) continue
    // "(+44) 0844 ...": the bracket opened before the country code goes with the number.
    const opened = text[start - 1] === "(" && /^\+\d{1,4}\)/.test(written) ? 1 : 0
    out.push({ start: start - opened, end: start + written.length, kind: "PHONE" })
  }
}
