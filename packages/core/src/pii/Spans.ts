/**
 * What redactPII finds: spans of text with a kind, and the contract's entity bucket each kind
 * falls in (`entities` in RedactPIIOptions chooses buckets).
 */
import type { RedactPIIEntities } from "../contract/RequestBodies.ts"

export type PiiBucket = (typeof RedactPIIEntities)[number]

/** The kinds found, each written as its own tag (`<EMAIL>`) under `replaceStyle: "tag"`. */
export const PiiKinds = {
  EMAIL: "EMAIL",
  PHONE: "PHONE",
  CREDIT_CARD: "FINANCIAL",
  IBAN: "FINANCIAL",
  CRYPTO_WALLET: "FINANCIAL",
  US_SSN: "SECRET",
  NATIONAL_ID: "SECRET",
  API_KEY: "SECRET",
  PASSWORD: "SECRET",
  CREDENTIALS: "SECRET",
  PRIVATE_KEY: "SECRET",
  IP_ADDRESS: "LOCATION",
  ADDRESS: "LOCATION",
  PERSON: "PERSON",
  DATE_OF_BIRTH: "PERSON"
} as const satisfies Record<string, PiiBucket>

export type PiiKind = keyof typeof PiiKinds

export interface PiiSpan {
  readonly start: number
  readonly end: number
  readonly kind: PiiKind
}

/** How hard to look: `fast` finds what patterns and check digits prove; `accurate` adds names, addresses and context rules; `aggressive` also takes weaker evidence. */
export type PiiMode = "fast" | "accurate" | "aggressive"

/** Keeps the longest of overlapping spans (the earlier on a tie), in text order. */
export const resolveOverlaps = (spans: ReadonlyArray<PiiSpan>): Array<PiiSpan> => {
  const byLength = [...spans].sort((a, b) => (b.end - b.start) - (a.end - a.start) || a.start - b.start)
  const kept: Array<PiiSpan> = []
  for (const span of byLength) {
    if (span.end <= span.start) continue
    if (kept.some((k) => span.start < k.end && k.start < span.end)) continue
    kept.push(span)
  }
  return kept.sort((a, b) => a.start - b.start)
}
