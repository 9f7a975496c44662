/**
 * The names idempotency and billing records are kept under. A request's parameters are compared by
 * a hash of their canonical JSON (keys sorted at every level, so `{a, b}` and `{b, a}` are the same
 * request); a charge made for an `x-request-id` is named from the team and the id, so the same
 * request charged twice (a retry, another replica) is one charge. Both are SHA-256 in hex.
 */
import { createHash } from "node:crypto"

/** JSON with object keys sorted at every level; `undefined` members are left out as JSON.stringify does. */
export const canonicalJson = (value: unknown): string =>
  JSON.stringify(value, (_key, item: unknown) =>
    item !== null && typeof item === "object" && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : item)

const sha256Hex = (text: string): string => createHash("sha256").update(text, "utf8").digest("hex")

/** The hash `beginRequest` compares: the same parameters, in any key order, give the same hash. */
export const paramsHash = (params: unknown): string => sha256Hex(canonicalJson(params))

/** The charge id of a team's request with this `x-request-id` (what error bodies report as `chargeId`). */
export const chargeIdFor = (teamId: string, requestId: string): string => sha256Hex(canonicalJson([teamId, requestId]))
