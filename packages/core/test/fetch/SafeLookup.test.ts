/**
 * The guarded DNS lookup: any blocked address in an answer refuses the name (a mixed answer is
 * how DNS rebinding slips through), in both the single-address and `all` callback forms.
 */
import { describe, expect, it } from "vitest"
import type { LookupFunction } from "node:net"
import { BlockedAddressError, makeGuardedLookup, type ResolvedAddress, type Resolver } from "../../src/fetch/SafeLookup.ts"

const answering = (answers: Record<string, ReadonlyArray<ResolvedAddress>>): Resolver => (hostname, _family, callback) =>
  setImmediate(() => callback(null, answers[hostname] ?? []))

const call = (lookup: LookupFunction, host: string, all: boolean): Promise<{ error: unknown; result: unknown }> =>
  new Promise((resolve) =>
    (lookup as unknown as (h: string, o: object, cb: (...args: Array<unknown>) => void) => void)(host, { all }, (error, address, family) =>
      resolve({ error, result: all ? address : { address, family } })
    )
  )

describe("SafeLookup", () => {
  const lookup = makeGuardedLookup(answering({
    "public.test": [{ address: "93.184.216.34", family: 4 }, { address: "2606:2800:220:1::1", family: 6 }],
    "rebind.test": [{ address: "93.184.216.34", family: 4 }, { address: "127.0.0.1", family: 4 }],
    "metadata.test": [{ address: "169.254.169.254", family: 4 }],
    "mapped.test": [{ address: "::ffff:10.0.0.1", family: 6 }]
  }))

  it("passes a public answer through in both callback forms", async () => {
    expect(await call(lookup, "public.test", false)).toEqual({ error: null, result: { address: "93.184.216.34", family: 4 } })
    const all = await call(lookup, "public.test", true)
    expect(all.error).toBeNull()
    expect(all.result).toEqual([{ address: "93.184.216.34", family: 4 }, { address: "2606:2800:220:1::1", family: 6 }])
  })

  it("refuses a name when any address it resolves to is internal", async () => {
    for (const [host, address] of [["rebind.test", "127.0.0.1"], ["metadata.test", "169.254.169.254"], ["mapped.test", "::ffff:10.0.0.1"]]) {
      for (const all of [false, true]) {
        const { error } = await call(lookup, host, all)
        expect(error).toBeInstanceOf(BlockedAddressError)
        expect((error as BlockedAddressError).address).toBe(address)
      }
    }
  })

  it("reports an empty answer as ENOTFOUND and passes resolver errors on", async () => {
    expect(((await call(lookup, "nothing.test", false)).error as NodeJS.ErrnoException).code).toBe("ENOTFOUND")
    const failing = makeGuardedLookup((_h, _f, cb) => {
      const e: NodeJS.ErrnoException = new Error("boom")
      e.code = "EAI_AGAIN"
      cb(e, [])
    })
    expect(((await call(failing, "x.test", true)).error as NodeJS.ErrnoException).code).toBe("EAI_AGAIN")
  })

  it("guards the real resolver too: localhost is refused", async () => {
    const { error } = await call(makeGuardedLookup(), "localhost", true)
    expect(error).toBeInstanceOf(BlockedAddressError)
  })
})
