/**
 * Sealing interact records at rest. A scrape's replay holds the caller's request headers and
 * cookies, which may be credentials (an `Authorization` header, a session cookie), so the column
 * holds them encrypted: AES-256-GCM under a key derived (HKDF-SHA256) from the server's artifact
 * secret, the key it already has and keeps off the database (`STRATA_ARTIFACT_SECRET`, or the one
 * generated in the data folder). A dump of the database alone, or a Postgres shared by several
 * services, shows who scraped, not with what.
 *
 * The additional data binds a sealed value to its row's scrape id, key and team: copied onto
 * another row, it does not open. Servers sharing one database must share the secret; one that
 * cannot open a record says so (`RecordUnreadable`) instead of pretending the scrape is unknown.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto"

const version = "v1"

export interface Sealer {
  readonly seal: (plain: string, context: string) => string
  /** The plain text, or undefined when it was sealed with another key or altered. */
  readonly open: (sealed: string, context: string) => string | undefined
}

/** A sealer whose key is derived from `secret`, for interact records only (the same secret signs artifact links with HMAC). */
export const makeSealer = (secret: Uint8Array): Sealer => {
  const key = Buffer.from(hkdfSync("sha256", secret, "strata", "interact records v1", 32))
  return {
    seal: (plain, context) => {
      const iv = randomBytes(12)
      const cipher = createCipheriv("aes-256-gcm", key, iv)
      cipher.setAAD(Buffer.from(context, "utf8"))
      const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()])
      return `${version}.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64url")}`
    },
    open: (sealed, context) => {
      if (!sealed.startsWith(`${version}.`)) return undefined
      const bytes = Buffer.from(sealed.slice(version.length + 1), "base64url")
      if (bytes.length < 28) return undefined
      try {
        const decipher = createDecipheriv("aes-256-gcm", key, bytes.subarray(0, 12))
        decipher.setAAD(Buffer.from(context, "utf8"))
        decipher.setAuthTag(bytes.subarray(12, 28))
        return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString("utf8")
      } catch {
        return undefined
      }
    }
  }
}
