/**
 * API keys as the store makes them: `sk-strata-{id}_{secret}`, where `id` (12 hex digits) is the
 * key's public name and the row to look up, and `secret` is 256 random bits. The store keeps the
 * id and the SHA-256 of the whole key; a presented key is found by its id and then compared by
 * hash in constant time, so the lookup never depends on the secret.
 *
 * Keys made elsewhere (`STRATA_API_KEYS`, the key generated on first start) have no id inside;
 * they are found by their hash, and their id is derived from it the way `packages/http` names
 * keys in logs (`key_` + the first 12 hex digits of the hash).
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto"

const storeKeyPattern = /^sk-strata-([0-9a-f]{12})_([A-Za-z0-9_-]{43})$/

export const sha256Hex = (text: string): string => createHash("sha256").update(text, "utf8").digest("hex")

/** The public id of a key made by `newKey`, as its row and the CLI name it. */
export const keyIdFor = (idDigits: string): string => `key_${idDigits}`

/** The id a key made elsewhere gets: from its hash, so importing it twice finds the same row. */
export const importedKeyId = (hashHex: string): string => `key_${hashHex.slice(0, 12)}`

/** A fresh key: the plain text (shown once), its id and its hash. */
export const newKey = (): { readonly key: string; readonly id: string; readonly hash: string } => {
  const digits = randomBytes(6).toString("hex")
  const key = `sk-strata-${digits}_${randomBytes(32).toString("base64url")}`
  return { key, id: keyIdFor(digits), hash: sha256Hex(key) }
}

/** How to find a presented key: by the id inside it, or (a key made elsewhere) by its hash. */
export const lookupOf = (key: string): { readonly id: string | undefined; readonly hash: string } => {
  const match = storeKeyPattern.exec(key)
  return { id: match === null ? undefined : keyIdFor(match[1]), hash: sha256Hex(key) }
}

/** Constant-time comparison of two hex hashes. */
export const sameHash = (a: string, b: string): boolean => {
  const left = Buffer.from(a, "hex")
  const right = Buffer.from(b, "hex")
  return left.length === right.length && left.length > 0 && timingSafeEqual(left, right)
}
