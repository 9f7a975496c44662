/**
 * The detectors that patterns and check digits can prove: e-mail addresses, payment cards (Luhn
 * and issuer prefix), IBANs (country length and mod 97), national identifiers (with their check
 * digits where they have one, else a keyword nearby), IP addresses, credentials in URLs, API keys
 * and private keys, passwords after a label, and dates of birth after a label.
 */
import { isIPv6 } from "node:net"
import { codiceFiscaleValid, elevenTestValid, ibanValid, luhnValid, spanishIdValid, ssnPlausible, verhoeffValid } from "./Checksums.ts"
import { isCommonWord } from "./Names.ts"
import type { PiiKind, PiiMode, PiiSpan } from "./Spans.ts"

type Found = Array<PiiSpan>

const each = (pattern: RegExp, text: string, visit: (match: RegExpExecArray) => void): void => {
  pattern.lastIndex = 0
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
    visit(match)
    if (match[0].length === 0) pattern.lastIndex++
  }
}

/** Whether one of `keywords` occurs within `window` characters before `at`. */
const contextBefore = (text: string, at: number, keywords: RegExp, window = 40): boolean =>
  keywords.test(text.slice(Math.max(0, at - window), at))

const LOCAL_CHAR = "[\\p{L}\\p{N}!#$%&'*+/=?^_`{|}~-]"
const EMAIL = new RegExp(
  `(?<![\\p{L}\\p{N}.!#$%&'*+/=?^_\`{|}~-])${LOCAL_CHAR}{1,64}(?:\\.${LOCAL_CHAR}{1,64})*@(?:[\\p{L}\\p{N}](?:[\\p{L}\\p{N}-]{0,61}[\\p{L}\\p{N}])?\\.)+\\p{L}{2,24}(?![\\p{L}\\p{N}-])`,
  "gu"
)
/** "jane [at] example [dot] com" and the like: aggressive mode only. */
const OBFUSCATED_EMAIL = /(?<![\w.-])[\w.+-]{1,64}\s*[[({]\s*at\s*[\])}]\s*[\w-]{1,63}(?:\s*[[({]\s*dot\s*[\])}]\s*[\w-]{2,24}){1,3}/giu

export const emails = (text: string, mode: PiiMode, out: Found): void => {
  if (!text.includes("@") && mode !== "aggressive") return
  each(EMAIL, text, (m) => {
    // "https://user:password@host" is a credential, not an address.
    if (/:\/\/[^\s/@]*$/.test(text.slice(Math.max(0, m.index - 100), m.index))) return
    out.push({ start: m.index, end: m.index + m[0].length, kind: "EMAIL" })
  })
  if (mode === "aggressive") each(OBFUSCATED_EMAIL, text, (m) => out.push({ start: m.index, end: m.index + m[0].length, kind: "EMAIL" }))
}

const CARD = /(?<![\d.,-])\d(?:[ -]?\d){12,18}(?![\d-]|[.,]\d)/g

/** Issuer prefixes and lengths: Visa, Mastercard, Amex, Discover, JCB, Diners, UnionPay, Maestro. */
const cardIssuer = (digits: string): boolean => {
  const n = digits.length
  const p2 = Number(digits.slice(0, 2))
  const p4 = Number(digits.slice(0, 4))
  if (digits[0] === "4") return n === 13 || n === 16 || n === 19
  if ((p2 >= 51 && p2 <= 55) || (p4 >= 2221 && p4 <= 2720)) return n === 16
  if (p2 === 34 || p2 === 37) return n === 15
  if (p4 === 6011 || p2 === 65 || (p4 >= 6440 && p4 <= 6499)) return n >= 16 && n <= 19
  if (p4 >= 3528 && p4 <= 3589) return n >= 16 && n <= 19
  if (p2 === 36 || p2 === 38 || (p4 >= 3000 && p4 <= 3059)) return n === 14 || n === 16
  if (p2 === 62) return n >= 16 && n <= 19
  if (p2 === 50 || (p2 >= 56 && p2 <= 69)) return n >= 12 && n <= 19
  return false
}

export const cards = (text: string, _mode: PiiMode, out: Found): void => {
  each(CARD, text, (m) => {
    const digits = m[0].replace(/[ -]/g, "")
    // One kind of separator, if any: "4111 1111-1111 1111" is not how a card is written.
    if (/ /.test(m[0]) && /-/.test(m[0])) return
    if (cardIssuer(digits) && luhnValid(digits)) out.push({ start: m.index, end: m.index + m[0].length, kind: "CREDIT_CARD" })
  })
}

const IBAN_START = /(?<![A-Za-z0-9])[A-Z]{2}\d{2}(?=[ A-Z0-9])/g

export const ibans = (text: string, _mode: PiiMode, out: Found): void => {
  each(IBAN_START, text, (m) => {
    // Take characters (single spaces allowed between them) up to 34, validating each length.
    let compact = ""
    let best = -1
    let at = m.index
    while (at < text.length && compact.length < 34) {
      const c = text[at]
      if (/[A-Z0-9]/.test(c)) {
        compact += c
        at++
        if (compact.length >= 15 && !/[A-Za-z0-9]/.test(text[at] ?? " ") && ibanValid(compact)) best = at
      } else if (c === " " && /[A-Z0-9]/.test(text[at + 1] ?? "") && compact.length > 0) at++
      else break
    }
    if (best > 0) out.push({ start: m.index, end: best, kind: "IBAN" })
  })
}

const SSN = /(?<![\d-])(\d{3})([- ])(\d{2})\2(\d{4})(?![\d-])/g
const SSN_BARE = /(?<!\d)(\d{3})(\d{2})(\d{4})(?!\d)/g
const SSN_WORDS = /\b(?:ssn|social security|soc\.? sec\.?|ss#|ss #|taxpayer id|tin)\b/i

export const ssns = (text: string, mode: PiiMode, out: Found): void => {
  each(SSN, text, (m) => {
    if (!ssnPlausible(m[1], m[3], m[4])) return
    // Dashes are the SSN's own format; spaces need a word that says so.
    if (m[2] === " " && !contextBefore(text, m.index, SSN_WORDS)) return
    out.push({ start: m.index, end: m.index + m[0].length, kind: "US_SSN" })
  })
  if (mode !== "fast") {
    each(SSN_BARE, text, (m) => {
      if (ssnPlausible(m[1], m[2], m[3]) && contextBefore(text, m.index, SSN_WORDS, 25)) out.push({ start: m.index, end: m.index + m[0].length, kind: "US_SSN" })
    })
  }
}

/** National identifiers other than the SSN, each with its check or its keyword. */
const NATIONAL: ReadonlyArray<{ readonly name: string; readonly pattern: RegExp; readonly valid: (m: RegExpExecArray, text: string) => boolean }> = [
  // UK National Insurance number: its prefix rules.
  {
    name: "UK_NINO",
    pattern: /(?<![A-Z0-9])(?!BG|GB|NK|KN|TN|NT|ZZ)[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z] ?\d{2} ?\d{2} ?\d{2} ?[A-D](?![A-Za-z0-9])/g,
    valid: () => true
  },
  // Spanish DNI / NIE: the control letter.
  { name: "ES_DNI", pattern: /(?<![A-Z0-9])[XYZ]?\d{7,8}-?[A-Z](?![A-Za-z0-9])/g, valid: (m) => spanishIdValid(m[0].replace("-", "").padStart(9, "0")) },
  // Dutch BSN: the eleven test and its name nearby.
  { name: "NL_BSN", pattern: /(?<!\d)\d{9}(?!\d)/g, valid: (m, text) => elevenTestValid(m[0]) && contextBefore(text, m.index, /\b(?:bsn|burgerservicenummer|sofinummer)\b/i) },
  // India's Aadhaar: Verhoeff and its name nearby.
  {
    name: "IN_AADHAAR",
    pattern: /(?<!\d)[2-9]\d{3} ?\d{4} ?\d{4}(?!\d)/g,
    valid: (m, text) => verhoeffValid(m[0].replace(/ /g, "")) && contextBefore(text, m.index, /\b(?:aadhaar|aadhar|uid)\b/i)
  },
  // Canada's SIN: Luhn and its name nearby.
  {
    name: "CA_SIN",
    pattern: /(?<![\d-])\d{3}[ -]?\d{3}[ -]?\d{3}(?![\d-])/g,
    valid: (m, text) => luhnValid(m[0].replace(/[ -]/g, "")) && contextBefore(text, m.index, /\b(?:sin|social insurance)\b/i)
  },
  // France's NIR (numéro de sécurité sociale): its key, 97 - (number mod 97).
  {
    name: "FR_NIR",
    pattern: /(?<![\dA-Z])[12] ?\d{2} ?(?:0[1-9]|1[0-2]|[2-9]\d) ?(?:\d{2}|2[AB]) ?\d{3} ?\d{3} ?\d{2}(?![\dA-Z])/g,
    valid: (m) => {
      const compact = m[0].replace(/ /g, "").replace("2A", "19").replace("2B", "18")
      return 97 - (Number(BigInt(compact.slice(0, 13)) % 97n)) === Number(compact.slice(13))
    }
  },
  // Italy's codice fiscale: its structure (letters, year, month letter, day, place) and its control letter.
  { name: "IT_CF", pattern: /(?<![A-Z0-9])[A-Z]{6}\d{2}[ABCDEHLMPRST]\d{2}[A-Z]\d{3}[A-Z](?![A-Za-z0-9])/g, valid: (m) => codiceFiscaleValid(m[0]) }
]

/** Each national identifier found, with the name of the detector that found it (the bench scores them apart). */
export const namedNationalIds = (text: string): Array<PiiSpan & { readonly name: string }> => {
  const found: Array<PiiSpan & { readonly name: string }> = []
  for (const { name, pattern, valid } of NATIONAL) {
    each(pattern, text, (m) => {
      if (valid(m, text)) found.push({ start: m.index, end: m.index + m[0].length, kind: "NATIONAL_ID", name })
    })
  }
  return found
}

export const nationalIds = (text: string, _mode: PiiMode, out: Found): void => {
  for (const { start, end, kind } of namedNationalIds(text)) out.push({ start, end, kind })
}

const IPV4 = /(?<![\d.]|[vV]|\d\.)(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?![\d]|\.\d)/g
const IPV6_CANDIDATE = /(?<![0-9A-Fa-f:])(?=[0-9A-Fa-f:]*:[0-9A-Fa-f:]*:)[0-9A-Fa-f:]{2,39}(?:%\w+)?(?![0-9A-Fa-f:])/g
const VERSION_WORDS = /\b(?:version|ver\.?|release|build|firmware)\s*$/i

export const ipAddresses = (text: string, _mode: PiiMode, out: Found): void => {
  if (!/\d\.\d|:[0-9A-Fa-f]*:/.test(text)) return
  each(IPV4, text, (m) => {
    if (VERSION_WORDS.test(text.slice(Math.max(0, m.index - 12), m.index))) return
    out.push({ start: m.index, end: m.index + m[0].length, kind: "IP_ADDRESS" })
  })
  each(IPV6_CANDIDATE, text, (m) => {
    const address = m[0].replace(/%\w+$/, "")
    // "::" alone, or clock times, are not addresses.
    if (address.replace(/:/g, "").length >= 4 && isIPv6(address)) out.push({ start: m.index, end: m.index + m[0].length, kind: "IP_ADDRESS" })
  })
}

const URL_CREDENTIALS = /\b[a-z][a-z0-9+.-]{1,15}:\/\/([^\s/@:?#[\]]+):([^\s/@?#[\]]+)@/gi

const SECRET_PATTERNS: ReadonlyArray<{ readonly pattern: RegExp; readonly kind: PiiKind }> = [
  { pattern: /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----[\s\S]{16,}?-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----/g, kind: "PRIVATE_KEY" },
  { pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, kind: "API_KEY" },
  { pattern: /\bgh[pousr]_[A-Za-z0-9]{36,255}\b/g, kind: "API_KEY" },
  { pattern: /\bgithub_pat_[A-Za-z0-9_]{22,255}\b/g, kind: "API_KEY" },
  { pattern: /\bglpat-[A-Za-z0-9_-]{20,}\b/g, kind: "API_KEY" },
  { pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}\b/g, kind: "API_KEY" },
  { pattern: /\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}\b/g, kind: "API_KEY" },
  { pattern: /\bAIza[0-9A-Za-z_-]{35}\b/g, kind: "API_KEY" },
  { pattern: /\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{20,}\b/g, kind: "API_KEY" },
  { pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\b/g, kind: "API_KEY" },
  { pattern: /\b(?:npm_[A-Za-z0-9]{36}|SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43})\b/g, kind: "API_KEY" }
]
/** A labelled secret: the value after "password:", "api key =", ... */
const LABELLED_SECRET = /\b(password|passwd|pwd|passcode|pass phrase|passphrase|pin|api[ _-]?key|secret[ _-]?key|access[ _-]?token|auth[ _-]?token|client[ _-]?secret)\b["']?\s*[:=]\s*["']?([^\s"'<>,;]{4,128})/gi
const CRYPTO = /(?<![A-Za-z0-9])(?:0x[0-9a-fA-F]{40}|bc1[02-9ac-hj-np-z]{25,59}|[13][1-9A-HJ-NP-Za-km-z]{25,34})(?![A-Za-z0-9])/g

export const secrets = (text: string, mode: PiiMode, out: Found): void => {
  each(URL_CREDENTIALS, text, (m) => {
    // The user and password, not the scheme or host.
    const start = m.index + m[0].indexOf("://") + 3
    out.push({ start, end: m.index + m[0].length - 1, kind: "CREDENTIALS" })
  })
  for (const { pattern, kind } of SECRET_PATTERNS) each(pattern, text, (m) => out.push({ start: m.index, end: m.index + m[0].length, kind }))
  each(LABELLED_SECRET, text, (m) => {
    const value = m[2]
    // "password: required", "PIN: ****" are not secrets.
    if (/^\*+$/.test(value) || (mode !== "aggressive" && /^\p{L}+$/u.test(value) && isCommonWord(value))) return
    const start = m.index + m[0].length - value.length
    out.push({ start, end: m.index + m[0].length, kind: /pass|pwd|pin/i.test(m[1]) ? "PASSWORD" : "API_KEY" })
  })
  if (mode === "aggressive") each(CRYPTO, text, (m) => out.push({ start: m.index, end: m.index + m[0].length, kind: "CRYPTO_WALLET" }))
  else {
    each(CRYPTO, text, (m) => {
      if (m[0].startsWith("0x") || m[0].startsWith("bc1") ? contextBefore(text, m.index, /\b(?:wallet|address|btc|eth|bitcoin|ethereum|send|pay)\b/i) : contextBefore(text, m.index, /\b(?:wallet|btc|bitcoin)\b/i)) {
        out.push({ start: m.index, end: m.index + m[0].length, kind: "CRYPTO_WALLET" })
      }
    })
  }
}

const MONTHS = "(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|jun(?:e)?|jul(?:y)?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?|januar|februar|märz|mai|juni|juli|oktober|dezember|janvier|février|mars|avril|juin|juillet|août|septembre|octobre|novembre|décembre|enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|octubre|noviembre|diciembre)\\.?"
const DATE = `(?:\\d{1,2}[./-]\\d{1,2}[./-](?:19|20)?\\d{2}|(?:19|20)\\d{2}-\\d{2}-\\d{2}|\\d{1,2}(?:st|nd|rd|th)?\\s+(?:of\\s+)?${MONTHS},?\\s+(?:19|20)\\d{2}|${MONTHS}\\s+\\d{1,2}(?:st|nd|rd|th)?,?\\s+(?:19|20)\\d{2})`
const BIRTH = new RegExp(
  `\\b(?:date of birth|birth ?date|birthday|d\\.?o\\.?b\\.?|born(?: on)?|geburtsdatum|geboren(?: am)?|née? le|date de naissance|fecha de nacimiento|nacid[oa] el)(?:\\s*[:\\-]\\s*|\\s+(?:is|was|of|:)?\\s*)(${DATE})`,
  "giu"
)

export const birthDates = (text: string, _mode: PiiMode, out: Found): void => {
  each(BIRTH, text, (m) => {
    const date = m[1]
    const start = m.index + m[0].length - date.length
    out.push({ start, end: m.index + m[0].length, kind: "DATE_OF_BIRTH" })
  })
}
