/**
 * The SSRF address classifier: examples, and properties checked against an independent
 * implementation (Node's WHATWG URL parser) over every spelling an attacker could choose.
 */
import { describe, expect, it } from "vitest"
import fc from "fast-check"
import { blockedRange, isPublicAddress, parseIpv4, parseIpv6 } from "../../src/fetch/IpClassifier.ts"

const dotted = (n: number): string => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join(".")
const u32 = fc.integer({ min: 0, max: 0xffffffff })

/** One byte written in decimal, octal (leading 0) or hex (0x), as inet_aton reads them. */
const spell = (value: number, radix: 8 | 10 | 16): string =>
  radix === 10 ? String(value) : radix === 8 ? `0${value.toString(8)}` : `0x${value.toString(16)}`
const radixArb = fc.constantFrom<8 | 10 | 16>(8, 10, 16)

/** Every textual shape of an IPv4 address: 1 to 4 parts, each part in any radix. */
const spellingArb = fc.tuple(u32, fc.integer({ min: 1, max: 4 }), fc.array(radixArb, { minLength: 4, maxLength: 4 })).map(([n, parts, radixes]) => {
  const bytes = [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255]
  const head = bytes.slice(0, parts - 1)
  const tail = bytes.slice(parts - 1).reduce((acc, b) => acc * 256 + b, 0)
  return { n, text: [...head, tail].map((v, i) => spell(v, radixes[i])).join(".") }
})

const blockedV4Samples: Array<[string, number]> = [
  ["0.0.0.0", 8], ["10.0.0.0", 8], ["100.64.0.0", 10], ["127.0.0.0", 8], ["169.254.0.0", 16], ["172.16.0.0", 12],
  ["192.168.0.0", 16], ["198.18.0.0", 15], ["224.0.0.0", 4], ["240.0.0.0", 4]
]

describe("IpClassifier", () => {
  it("blocks the internal ranges and passes public addresses", () => {
    for (const a of ["127.0.0.1", "10.0.0.1", "172.31.255.255", "192.168.0.1", "169.254.169.254", "100.64.0.1", "0.0.0.0", "255.255.255.255", "224.0.0.251", "::1", "::", "fe80::1", "fc00::1", "fd12:3456::1", "ff02::1", "::ffff:127.0.0.1", "::ffff:7f00:1", "::ffff:a9fe:a9fe", "::127.0.0.1", "64:ff9b::10.0.0.1", "2002:7f00:1::", "[::1]", "fe80::1%eth0"]) {
      expect(blockedRange(a), a).toBeDefined()
    }
    for (const a of ["8.8.8.8", "1.1.1.1", "93.184.216.34", "172.15.255.255", "172.32.0.0", "100.63.255.255", "100.128.0.0", "169.253.0.1", "2606:4700:4700::1111", "2001:4860:4860::8888", "::ffff:8.8.8.8", "64:ff9b::8.8.8.8", "2002:0808:0808::1"]) {
      expect(blockedRange(a), a).toBeUndefined()
    }
    expect(blockedRange("169.254.169.254")).toMatch(/metadata/)
    expect(blockedRange("example.com")).toBe("not an IP address")
    expect(isPublicAddress("8.8.4.4")).toBe(true)
  })

  it("describes every range as a noun phrase that reads after \"is\": right article, no doubled words", () => {
    const samples = ["0.0.0.0", "10.0.0.1", "100.64.0.1", "127.0.0.1", "169.254.169.254", "169.254.1.1", "172.16.0.1", "192.0.0.1", "192.0.2.1", "192.88.99.1", "192.168.0.1", "198.18.0.1", "198.51.100.1", "203.0.113.1", "224.0.0.1", "255.255.255.255", "240.0.0.1", "::", "::1", "::ffff:127.0.0.1", "::127.0.0.1", "::ffff:0:10.0.0.1", "64:ff9b::10.0.0.1", "64:ff9b:1::1", "100::1", "2001:db8::1", "2001::1", "2002:7f00:1::", "fc00::1", "fe80::1", "fec0::1", "ff02::1"]
    for (const address of samples) {
      const range = blockedRange(address)!
      expect(range, address).toMatch(/^(a|an|the) /)
      // "an" before a vowel sound; "unique" starts with a "y" sound.
      const [article, word] = range.split(" ")
      if (article !== "the") expect(article, range).toBe(/^[aeiou]|^IETF|^IPv/i.test(word) && !word.startsWith("unique") ? "an" : "a")
      expect(range, address).not.toMatch(/\b(\w+) \1\b/i)
    }
    expect(blockedRange("0.0.0.0")).toBe("an unspecified (this-network) address (0.0.0.0/8)")
    expect(blockedRange("::ffff:127.0.0.1")).toBe("a loopback address (127.0.0.0/8), reached through an IPv4-mapped IPv6 address (::ffff:0:0/96)")
  })

  it("parses the loose IPv4 spellings inet_aton accepts and rejects the rest", () => {
    expect(parseIpv4("2130706433")).toBe(0x7f000001)
    expect(parseIpv4("0x7f000001")).toBe(0x7f000001)
    expect(parseIpv4("017700000001")).toBe(0x7f000001)
    expect(parseIpv4("127.1")).toBe(0x7f000001)
    expect(parseIpv4("0x7f.0.0.1")).toBe(0x7f000001)
    expect(parseIpv4("127.0.0.1.")).toBe(0x7f000001)
    for (const bad of ["256.0.0.1", "1.2.3.4.5", "08.0.0.1", "1..2", "", "0x1g", "4294967296", "1.2.65536"]) expect(parseIpv4(bad), bad).toBeUndefined()
  })

  it("parses IPv6 text forms into 16 bytes", () => {
    expect(Array.from(parseIpv6("::1")!)).toEqual([...Array(15).fill(0), 1])
    expect(Array.from(parseIpv6("::ffff:1.2.3.4")!.slice(10))).toEqual([255, 255, 1, 2, 3, 4])
    for (const bad of ["1:2:3:4:5:6:7:8:9", "1::2::3", "12345::", "1.2.3.4", ":1:2:3:4:5:6:7", "::1.2.3.256"]) expect(parseIpv6(bad), bad).toBeUndefined()
  })

  it("reads every IPv4 spelling as the WHATWG URL parser does (property)", () => {
    fc.assert(
      fc.property(spellingArb, ({ n, text }) => {
        expect(parseIpv4(text)).toBe(n)
        expect(new URL(`http://${text}/`).hostname).toBe(dotted(n))
        expect(blockedRange(text)).toBe(blockedRange(dotted(n)))
      }),
      { numRuns: 2000 }
    )
  })

  it("judges IPv4-mapped and IPv4-compatible IPv6 forms by their IPv4 address (property)", () => {
    fc.assert(
      fc.property(u32, (n) => {
        const v4 = blockedRange(dotted(n)) !== undefined
        const hex = `${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`
        expect(blockedRange(`::ffff:${dotted(n)}`) !== undefined).toBe(v4)
        expect(blockedRange(`::ffff:${hex}`) !== undefined).toBe(v4)
        expect(blockedRange(`0:0:0:0:0:ffff:${hex}`) !== undefined).toBe(v4)
        // The URL parser's canonical form of a mapped address must be judged the same way.
        expect(blockedRange(new URL(`http://[::ffff:${dotted(n)}]/`).hostname) !== undefined).toBe(v4)
        expect(blockedRange(`64:ff9b::${dotted(n)}`) !== undefined).toBe(v4)
      }),
      { numRuns: 2000 }
    )
  })

  it("blocks every address inside each internal IPv4 range (property)", () => {
    fc.assert(
      fc.property(fc.constantFrom(...blockedV4Samples), fc.integer({ min: 0, max: 0xffffffff }), ([base, prefix], offset) => {
        const n = parseIpv4(base)! + (offset % 2 ** (32 - prefix))
        expect(blockedRange(dotted(n)), dotted(n)).toBeDefined()
      })
    )
  })

  it("passes addresses in public blocks (property)", () => {
    // 8.0.0.0/8, 1.0.0.0/8 (minus nothing internal), 93.0.0.0/8 are all public unicast.
    fc.assert(
      fc.property(fc.constantFrom(1, 8, 93, 151, 185), fc.integer({ min: 0, max: 0xffffff }), (first, rest) => {
        expect(blockedRange(dotted(first * 2 ** 24 + rest))).toBeUndefined()
      })
    )
  })

  it("reads every IPv6 text form of an address alike (property)", () => {
    const groups = fc.array(fc.integer({ min: 0, max: 0xffff }), { minLength: 8, maxLength: 8 })
    // Bias towards zero runs so that "::" compression is exercised.
    const biased = fc.tuple(groups, fc.integer({ min: 0, max: 7 }), fc.integer({ min: 0, max: 8 })).map(([g, at, len]) => g.map((v, i) => (i >= at && i < at + len ? 0 : v)))
    fc.assert(
      fc.property(biased, (g) => {
        const full = g.map((v) => v.toString(16).padStart(4, "0")).join(":")
        const canonical = new URL(`http://[${full}]/`).hostname
        expect(Array.from(parseIpv6(canonical)!)).toEqual(Array.from(parseIpv6(full)!))
        expect(blockedRange(canonical)).toBe(blockedRange(full))
        expect(blockedRange(full.toUpperCase())).toBe(blockedRange(full))
      }),
      { numRuns: 2000 }
    )
  })
})
