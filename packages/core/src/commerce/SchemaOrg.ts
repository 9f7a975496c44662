/**
 * Reading schema.org values as pages write them: a property may be a value, an object or an array
 * of either; types may be prefixed (`schema:Product`, `http://schema.org/Product`) or listed; a
 * price may be a number, a string with a currency sign and thousands separators, or nested in a
 * price specification.
 */
import { DomUtils, parseDocument } from "htmlparser2"

export type Thing = Record<string, unknown>

/** JSON-LD written through an HTML template often keeps its entities (`TFC8&reg;`): decoded here. */
const decodeEntities = (value: string): string =>
  /&(?:#\d+|#x[\da-f]+|\w+);/i.test(value) ? DomUtils.textContent(parseDocument(`<p>${value.replace(/</g, "&lt;")}</p>`)) : value

export const isThing = (value: unknown): value is Thing => typeof value === "object" && value !== null && !Array.isArray(value)

/** A property's values as a list. */
export const all = (value: unknown): Array<unknown> => (value === undefined || value === null ? [] : Array.isArray(value) ? value : [value])

/** The local type names of a thing (`Product`, `ProductGroup`...). */
export const typesOf = (thing: Thing): Array<string> =>
  all(thing["@type"]).filter((t): t is string => typeof t === "string").map((t) => t.replace(/^.*[/#:]/, ""))

export const hasType = (thing: Thing, ...names: ReadonlyArray<string>): boolean => typesOf(thing).some((t) => names.includes(t))

/** A text value: a string, a number, or an object's `name` / `@value`. */
export const text = (value: unknown): string | undefined => {
  for (const v of all(value)) {
    if (typeof v === "string" && v.trim() !== "") return decodeEntities(v).replace(/\s+/g, " ").trim()
    if (typeof v === "number") return String(v)
    if (isThing(v)) {
      const inner = text(v["@value"] ?? v.name)
      if (inner !== undefined) return inner
    }
  }
  return undefined
}

/** A URL value: a string, or an ImageObject's / thing's `url` / `contentUrl` / `@id`. */
export const urls = (value: unknown, base: string | undefined): Array<string> => {
  const out: Array<string> = []
  for (const v of all(value)) {
    const raw = typeof v === "string" ? v : isThing(v) ? text(v.url) ?? text(v.contentUrl) ?? (typeof v["@id"] === "string" ? v["@id"] : undefined) : undefined
    if (raw === undefined) continue
    try {
      out.push(new URL(raw, base).href)
    } catch {
      // not a URL
    }
  }
  return out
}

/** A number from a price as written: 1299, "1299.00", "1.299,00", "$1,299", "12,50 €". */
export const amount = (value: unknown): number | undefined => {
  if (typeof value === "number" && Number.isFinite(value)) return value
  const written = text(value)
  if (written === undefined) return undefined
  const digits = written.replace(/[^\d.,-]/g, "")
  if (!/\d/.test(digits)) return undefined
  const lastDot = digits.lastIndexOf(".")
  const lastComma = digits.lastIndexOf(",")
  // The last separator followed by exactly 1-2 digits is the decimal one.
  const decimalAt = Math.max(lastDot, lastComma)
  const decimals = decimalAt >= 0 ? digits.length - decimalAt - 1 : 0
  const normal = decimalAt >= 0 && decimals > 0 && decimals <= 2
    ? `${digits.slice(0, decimalAt).replace(/[.,]/g, "")}.${digits.slice(decimalAt + 1)}`
    : digits.replace(/[.,]/g, "")
  const n = Number(normal)
  return Number.isFinite(n) ? n : undefined
}

/** schema.org availability values that mean the thing can be bought now. */
const IN_STOCK = new Set(["InStock", "InStoreOnly", "LimitedAvailability", "OnlineOnly", "PreSale", "BackOrder"])

export const availability = (value: unknown): { readonly inStock: boolean; readonly text?: string } | undefined => {
  const written = text(value)
  if (written === undefined) return undefined
  const name = written.replace(/^.*[/#:]/, "")
  return { inStock: IN_STOCK.has(name) || /^in[\s_-]?stock$/i.test(name), text: name }
}

/** Every thing in a JSON-LD tree (graphs, nested values), depth-first, at most `limit`. */
export const things = (roots: ReadonlyArray<unknown>, limit = 5000): Array<Thing> => {
  const out: Array<Thing> = []
  const stack = [...roots].reverse()
  while (stack.length > 0 && out.length < limit) {
    const node = stack.pop()
    if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i--) stack.push(node[i])
      continue
    }
    if (!isThing(node)) continue
    out.push(node)
    const values = Object.values(node)
    for (let i = values.length - 1; i >= 0; i--) if (typeof values[i] === "object") stack.push(values[i])
  }
  return out
}
