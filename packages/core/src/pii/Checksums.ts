/**
 * Check digits of the identifiers redactPII looks for: a candidate is an identifier only when
 * its check digit agrees, which is what keeps order numbers, timestamps and prices out.
 */

/** Luhn (ISO/IEC 7812): payment cards, Canadian SINs, IMEIs. */
export const luhnValid = (digits: string): boolean => {
  let sum = 0
  let double = false
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48
    if (d < 0 || d > 9) return false
    if (double) {
      d *= 2
      if (d > 9) d -= 9
    }
    sum += d
    double = !double
  }
  return digits.length > 0 && sum % 10 === 0
}

/** IBAN lengths by country (ISO 13616 registry). */
const IBAN_LENGTHS: Readonly<Record<string, number>> = {
  AD: 24, AE: 23, AL: 28, AT: 20, AZ: 28, BA: 20, BE: 16, BG: 22, BH: 22, BR: 29, BY: 28, CH: 21, CR: 22, CY: 28,
  CZ: 24, DE: 22, DK: 18, DO: 28, EE: 20, EG: 29, ES: 24, FI: 18, FO: 18, FR: 27, GB: 22, GE: 22, GI: 23, GL: 18,
  GR: 27, GT: 28, HR: 21, HU: 28, IE: 22, IL: 23, IQ: 23, IS: 26, IT: 27, JO: 30, KW: 30, KZ: 20, LB: 28, LC: 32,
  LI: 21, LT: 20, LU: 20, LV: 21, MC: 27, MD: 24, ME: 22, MK: 19, MR: 27, MT: 31, MU: 30, NL: 18, NO: 15, PK: 24,
  PL: 28, PS: 29, PT: 25, QA: 29, RO: 24, RS: 22, SA: 24, SC: 31, SE: 24, SI: 19, SK: 24, SM: 27, ST: 25, SV: 28,
  TL: 23, TN: 24, TR: 26, UA: 29, VA: 22, VG: 24, XK: 20
}

/** An IBAN (spaces removed, upper case): its country's length and the mod-97 check (ISO 7064). */
export const ibanValid = (iban: string): boolean => {
  if (IBAN_LENGTHS[iban.slice(0, 2)] !== iban.length) return false
  const moved = iban.slice(4) + iban.slice(0, 4)
  let remainder = 0
  for (const char of moved) {
    const code = char.charCodeAt(0)
    const value = code >= 65 && code <= 90 ? String(code - 55) : char
    for (const digit of value) {
      const d = digit.charCodeAt(0) - 48
      if (d < 0 || d > 9) return false
      remainder = (remainder * 10 + d) % 97
    }
  }
  return remainder === 1
}

const VERHOEFF_D = [
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [1, 2, 3, 4, 0, 6, 7, 8, 9, 5], [2, 3, 4, 0, 1, 7, 8, 9, 5, 6],
  [3, 4, 0, 1, 2, 8, 9, 5, 6, 7], [4, 0, 1, 2, 3, 9, 5, 6, 7, 8], [5, 9, 8, 7, 6, 0, 4, 3, 2, 1],
  [6, 5, 9, 8, 7, 1, 0, 4, 3, 2], [7, 6, 5, 9, 8, 2, 1, 0, 4, 3], [8, 7, 6, 5, 9, 3, 2, 1, 0, 4],
  [9, 8, 7, 6, 5, 4, 3, 2, 1, 0]
]
const VERHOEFF_P = [
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [1, 5, 7, 6, 2, 8, 3, 0, 9, 4], [5, 8, 0, 3, 7, 9, 6, 1, 4, 2],
  [8, 9, 1, 6, 0, 4, 3, 5, 2, 7], [9, 4, 5, 3, 1, 2, 6, 8, 7, 0], [4, 2, 8, 6, 5, 7, 3, 9, 0, 1],
  [2, 7, 9, 3, 8, 0, 6, 4, 1, 5], [7, 0, 4, 6, 9, 1, 3, 2, 5, 8]
]

/** Verhoeff (India's Aadhaar). */
export const verhoeffValid = (digits: string): boolean => {
  let c = 0
  const reversed = [...digits].reverse()
  for (let i = 0; i < reversed.length; i++) c = VERHOEFF_D[c][VERHOEFF_P[i % 8][reversed[i].charCodeAt(0) - 48]]
  return c === 0
}

/** The Dutch BSN's "eleven test". */
export const elevenTestValid = (digits: string): boolean => {
  if (digits.length !== 9) return false
  let sum = 0
  for (let i = 0; i < 8; i++) sum += (9 - i) * (digits.charCodeAt(i) - 48)
  sum -= digits.charCodeAt(8) - 48
  return sum % 11 === 0 && sum !== 0
}

/** The Spanish DNI/NIE control letter. */
export const spanishIdValid = (id: string): boolean => {
  const letters = "TRWAGMYFPDXBNJZSQVHLCKE"
  const body = id.slice(0, -1).replace(/^X/, "0").replace(/^Y/, "1").replace(/^Z/, "2")
  if (!/^\d{8}$/.test(body)) return false
  return letters[Number(body) % 23] === id.slice(-1)
}

/** Values of the codice fiscale's characters in odd positions (first, third, ...): 0-9 as A-J, then K-Z. */
const CF_ODD = [1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 2, 4, 18, 20, 11, 3, 6, 8, 12, 14, 16, 10, 22, 25, 24, 23]

/**
 * The Italian codice fiscale's control letter (DM 23/12/1976): odd positions by CF_ODD, even
 * positions by their own value (0-9, A-Z as 0-25), the sum mod 26 as a letter. Upper case, 16 characters.
 */
export const codiceFiscaleValid = (code: string): boolean => {
  if (!/^[A-Z0-9]{15}[A-Z]$/.test(code)) return false
  let sum = 0
  for (let i = 0; i < 15; i++) {
    const c = code.charCodeAt(i)
    const value = c <= 57 ? c - 48 : c - 65
    sum += i % 2 === 0 ? CF_ODD[value] : value
  }
  return code.charCodeAt(15) === 65 + (sum % 26)
}

/** The US SSN's structure: area not 000, 666 or 9xx; group not 00; serial not 0000. */
export const ssnPlausible = (area: string, group: string, serial: string): boolean =>
  area !== "000" && area !== "666" && area[0] !== "9" && group !== "00" && serial !== "0000"
