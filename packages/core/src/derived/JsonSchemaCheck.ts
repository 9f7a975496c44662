/**
 * A small JSON Schema checker for what the `json` format returns: `type`, `properties`,
 * `required`, `items`, `enum`, `const`, bounds, `pattern`, `anyOf`/`oneOf`/`allOf`, local `$ref`
 * and `additionalProperties: false`. Enough to say which keys of an extraction are wrong, in
 * words a client can act on; keywords it does not know are not checked (never a false alarm).
 */

export type JsonSchema = Record<string, unknown>

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value)

const typeOf = (value: unknown): string => {
  if (value === null) return "null"
  if (Array.isArray(value)) return "array"
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number"
  return typeof value
}

const typeMatches = (expected: string, value: unknown): boolean => {
  const actual = typeOf(value)
  return expected === actual || (expected === "number" && actual === "integer")
}

/** Follows a local `$ref` (`#/$defs/x`, `#/definitions/x`); anything else is left unchecked. */
export const resolveRef = (schema: JsonSchema, root: JsonSchema): JsonSchema => {
  // A schema is an object; `true`, `null`, numbers and arrays constrain nothing we check.
  if (!isRecord(schema)) return {}
  let current = schema
  for (let hops = 0; hops < 8 && typeof current.$ref === "string"; hops++) {
    const ref = current.$ref
    if (!ref.startsWith("#/")) return {}
    let target: unknown = root
    for (const part of ref.slice(2).split("/")) target = (target as Record<string, unknown> | undefined)?.[part.replace(/~1/g, "/").replace(/~0/g, "~")]
    if (!isRecord(target)) return {}
    current = target
  }
  return current
}

/** The problems of `value` against `schema`, each as `path: what is wrong` (`$` is the root). */
export const checkSchema = (value: unknown, schema: JsonSchema, root: JsonSchema = schema, path = "$", depth = 0): Array<string> => {
  if (depth > 32) return []
  const s = resolveRef(schema, root)
  const errors: Array<string> = []
  const types = typeof s.type === "string" ? [s.type] : Array.isArray(s.type) ? (s.type as Array<string>) : undefined
  if (s.nullable === true && value === null) return []
  if (types !== undefined && !types.some((t) => typeMatches(t, value))) {
    // A schema's type list is the user's JSON: an entry may be any value, even an object whose
    // toString is null, which join() cannot turn into text (a fuzzed schema threw here).
    return [`${path}: expected ${types.map((t) => (typeof t === "string" ? t : JSON.stringify(t))).join(" or ")}, got ${typeOf(value)}`]
  }
  if (Array.isArray(s.enum) && !s.enum.some((e) => JSON.stringify(e) === JSON.stringify(value))) {
    errors.push(`${path}: must be one of ${s.enum.map((e) => JSON.stringify(e)).join(", ")}`)
  }
  if ("const" in s && JSON.stringify(s.const) !== JSON.stringify(value)) errors.push(`${path}: must be ${JSON.stringify(s.const)}`)
  if (typeof value === "number") {
    if (typeof s.minimum === "number" && value < s.minimum) errors.push(`${path}: must be at least ${s.minimum}`)
    if (typeof s.maximum === "number" && value > s.maximum) errors.push(`${path}: must be at most ${s.maximum}`)
  }
  if (typeof value === "string") {
    if (typeof s.minLength === "number" && value.length < s.minLength) errors.push(`${path}: shorter than ${s.minLength}`)
    if (typeof s.maxLength === "number" && value.length > s.maxLength) errors.push(`${path}: longer than ${s.maxLength}`)
    if (typeof s.pattern === "string") {
      try {
        if (!new RegExp(s.pattern, "u").test(value)) errors.push(`${path}: does not match ${s.pattern}`)
      } catch {
        // A pattern JavaScript cannot compile is not checked.
      }
    }
  }
  if (Array.isArray(value)) {
    if (typeof s.minItems === "number" && value.length < s.minItems) errors.push(`${path}: fewer than ${s.minItems} items`)
    if (typeof s.maxItems === "number" && value.length > s.maxItems) errors.push(`${path}: more than ${s.maxItems} items`)
    if (isRecord(s.items)) {
      value.forEach((item, i) => errors.push(...checkSchema(item, s.items as JsonSchema, root, `${path}[${i}]`, depth + 1)))
    }
  }
  if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    const record = value as Record<string, unknown>
    const properties = (isRecord(s.properties) ? s.properties : {}) as Record<string, JsonSchema>
    if (Array.isArray(s.required)) {
      for (const key of s.required) if (typeof key === "string" && !(key in record)) errors.push(`${path}.${key}: required`)
    }
    for (const [key, inner] of Object.entries(record)) {
      const propertySchema = properties[key]
      if (propertySchema !== undefined) errors.push(...checkSchema(inner, propertySchema, root, `${path}.${key}`, depth + 1))
      else if (s.additionalProperties === false) errors.push(`${path}.${key}: not allowed`)
      else if (isRecord(s.additionalProperties)) {
        errors.push(...checkSchema(inner, s.additionalProperties as JsonSchema, root, `${path}.${key}`, depth + 1))
      }
    }
  }
  if (Array.isArray(s.allOf)) for (const sub of s.allOf as Array<JsonSchema>) errors.push(...checkSchema(value, sub, root, path, depth + 1))
  for (const keyword of ["anyOf", "oneOf"] as const) {
    const options = s[keyword]
    if (Array.isArray(options) && options.length > 0) {
      const results = (options as Array<JsonSchema>).map((sub) => checkSchema(value, sub, root, path, depth + 1))
      if (!results.some((r) => r.length === 0)) errors.push(`${path}: matches none of the ${keyword} schemas`)
    }
  }
  return errors
}
