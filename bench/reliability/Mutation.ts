/**
 * Byte mutations for the fuzz run, as data (so a failing case is printed and replayed exactly):
 * bit flips, truncations, splices from another seed, duplicated ranges and zeroed ranges.
 * Positions are fractions of the current length, so one mutation applies to any file.
 */
import fc from "fast-check"

export type Mutation =
  | { readonly op: "flip"; readonly at: number; readonly bit: number }
  | { readonly op: "truncate"; readonly at: number }
  | { readonly op: "splice"; readonly at: number; readonly from: number; readonly source: number; readonly length: number }
  | { readonly op: "duplicate"; readonly at: number; readonly length: number; readonly to: number }
  | { readonly op: "zero"; readonly at: number; readonly length: number }

export interface FuzzCase {
  readonly seed: number
  readonly mutations: ReadonlyArray<Mutation>
}

/** Uniform over the file: fc.double's bias towards 0 and 1 put most mutations on the magic bytes. */
const fraction = fc.noBias(fc.integer({ min: 0, max: 999_999 })).map((n) => n / 1_000_000)
const length = fc.oneof(fc.integer({ min: 1, max: 16 }), fc.integer({ min: 17, max: 4096 }))

export const mutationArbitrary = (seedCount: number): fc.Arbitrary<Mutation> =>
  fc.oneof(
    { arbitrary: fc.record({ op: fc.constant("flip" as const), at: fraction, bit: fc.integer({ min: 0, max: 7 }) }), weight: 4 },
    { arbitrary: fc.record({ op: fc.constant("truncate" as const), at: fraction }), weight: 1 },
    { arbitrary: fc.record({ op: fc.constant("splice" as const), at: fraction, from: fraction, source: fc.integer({ min: 0, max: seedCount - 1 }), length }), weight: 2 },
    { arbitrary: fc.record({ op: fc.constant("duplicate" as const), at: fraction, length, to: fraction }), weight: 2 },
    { arbitrary: fc.record({ op: fc.constant("zero" as const), at: fraction, length }), weight: 2 }
  )

export const caseArbitrary = (seedCount: number): fc.Arbitrary<FuzzCase> =>
  fc.record({
    seed: fc.integer({ min: 0, max: seedCount - 1 }),
    mutations: fc.array(mutationArbitrary(seedCount), { minLength: 1, maxLength: 4 })
  })

const index = (at: number, size: number) => Math.min(size, Math.floor(at * size))

export const mutate = (bytes: Uint8Array, mutation: Mutation, sources: ReadonlyArray<Uint8Array>): Uint8Array => {
  const out = Buffer.from(bytes)
  switch (mutation.op) {
    case "flip": {
      if (out.length === 0) return out
      const i = Math.min(out.length - 1, index(mutation.at, out.length))
      out[i] ^= 1 << mutation.bit
      return out
    }
    case "truncate":
      return out.subarray(0, Math.max(1, index(mutation.at, out.length)))
    case "splice": {
      const source = sources[mutation.source]
      const from = index(mutation.from, source.length)
      const at = index(mutation.at, out.length)
      return Buffer.concat([out.subarray(0, at), source.subarray(from, from + mutation.length), out.subarray(at + mutation.length)])
    }
    case "duplicate": {
      const at = index(mutation.at, out.length)
      const to = index(mutation.to, out.length)
      return Buffer.concat([out.subarray(0, to), out.subarray(at, at + mutation.length), out.subarray(to)])
    }
    case "zero": {
      const at = index(mutation.at, out.length)
      out.fill(0, at, Math.min(out.length, at + mutation.length))
      return out
    }
  }
}

export const apply = (fuzzCase: FuzzCase, sources: ReadonlyArray<Uint8Array>): Uint8Array =>
  fuzzCase.mutations.reduce((bytes, mutation) => mutate(bytes, mutation, sources), sources[fuzzCase.seed])

/** A mutation as short text for the report (fractions to 4 places). */
export const describe = (mutation: Mutation): string => {
  const f = (x: number) => x.toFixed(4)
  switch (mutation.op) {
    case "flip": return `flip(${f(mutation.at)}, bit ${mutation.bit})`
    case "truncate": return `truncate(${f(mutation.at)})`
    case "splice": return `splice(at ${f(mutation.at)}, seed ${mutation.source} from ${f(mutation.from)}, ${mutation.length} B)`
    case "duplicate": return `duplicate(${f(mutation.at)}, ${mutation.length} B, to ${f(mutation.to)})`
    case "zero": return `zero(${f(mutation.at)}, ${mutation.length} B)`
  }
}
