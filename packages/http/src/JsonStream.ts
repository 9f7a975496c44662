/**
 * A large JSON answer written piece by piece. `JSON.stringify` of a 10,000-page document's `data`
 * builds one string of tens of MB in one synchronous call: the event loop stood still for it
 * (the 256 ms /health gap in bench/results/reliability.md) and the string, plus its UTF-8 copy,
 * doubled the answer's peak memory. Here the value is walked lazily and written in pieces of about
 * 64 KB as the socket takes them; long strings are escaped a slice at a time.
 *
 * The text is exactly what `JSON.stringify(value)` gives: `toJSON` is honoured, `undefined`,
 * functions and symbols are left out of objects and written as `null` in arrays, and a non-finite
 * number is `null`. A lone surrogate at a slice boundary is escaped as `\uXXXX`, which a JSON
 * parser joins with its pair in the next slice.
 */
import { Stream } from "effect"

/** Pieces are gathered to about this size before they are handed on. */
const PIECE = 64 * 1024
/** Strings longer than this are escaped in slices of this length. */
const SLICE = 32 * 1024

type Json = null | boolean | number | string | ReadonlyArray<unknown> | { readonly [key: string]: unknown }

const skipped = (value: unknown): boolean =>
  value === undefined || typeof value === "function" || typeof value === "symbol"

const prepare = (value: unknown, key: string): unknown => {
  if (value !== null && typeof value === "object" && typeof (value as { toJSON?: unknown }).toJSON === "function") {
    return (value as { toJSON: (key: string) => unknown }).toJSON(key)
  }
  return value
}

function* pieces(value: Json): Generator<string> {
  if (typeof value === "string") {
    if (value.length <= SLICE) return yield JSON.stringify(value)
    yield "\""
    for (let at = 0; at < value.length; at += SLICE) yield JSON.stringify(value.slice(at, at + SLICE)).slice(1, -1)
    return yield "\""
  }
  if (value === null || typeof value !== "object") return yield JSON.stringify(value)
  if (Array.isArray(value)) {
    yield "["
    for (let i = 0; i < value.length; i++) {
      if (i > 0) yield ","
      const item = prepare(value[i], String(i))
      if (skipped(item)) yield "null"
      else yield* pieces(item as Json)
    }
    return yield "]"
  }
  yield "{"
  let first = true
  for (const [key, raw] of Object.entries(value)) {
    const item = prepare(raw, key)
    if (skipped(item)) continue
    yield first ? `${JSON.stringify(key)}:` : `,${JSON.stringify(key)}:`
    first = false
    yield* pieces(item as Json)
  }
  return yield "}"
}

/** `JSON.stringify(value)` as pieces of about 64 KB. */
export function* jsonPieces(value: unknown): Generator<string> {
  const top = prepare(value, "")
  if (skipped(top)) return
  let buffer = ""
  for (const piece of pieces(top as Json)) {
    buffer += piece
    if (buffer.length >= PIECE) {
      yield buffer
      buffer = ""
    }
  }
  if (buffer.length > 0) yield buffer
}

/** `JSON.stringify(value)` as a byte stream, one piece per pull. */
export const jsonStream = (value: unknown): Stream.Stream<Uint8Array> =>
  Stream.fromIteratorSucceed(jsonPieces(value), 1).pipe(Stream.encodeText)

/**
 * Whether `value` is likely to serialise to more than `limit` characters: the lengths of its
 * strings, counted until the limit is passed (so a large answer stops the walk early).
 */
export const largerThan = (value: unknown, limit: number): boolean => {
  let size = 0
  const stack: Array<unknown> = [value]
  while (stack.length > 0) {
    const item = stack.pop()
    if (typeof item === "string") size += item.length + 2
    else if (item !== null && typeof item === "object") {
      for (const inner of Array.isArray(item) ? item : Object.values(item)) {
        size += 4
        stack.push(inner)
      }
    } else size += 8
    if (size > limit) return true
  }
  return false
}
