/**
 * Classifies IP addresses for SSRF protection: which addresses a scrape may connect to.
 *
 * The fetcher asks `blockedRange` about every address it is about to connect to (URL literals
 * before connecting, DNS answers inside the socket's `lookup`), so a name that resolves to a
 * private address, or a DNS answer that changes between checks, cannot reach internal services.
 * Parsers accept the loose spellings `inet_aton` accepts (decimal, octal, hex, 1 to 4 parts)
 * and every IPv6 text form, because an attacker picks the spelling, not us.
 */

/** Parses an IPv4 address the way `inet_aton` does: "127.1", "0x7f.0.0.1", "017700000001", "2130706433". */
export const parseIpv4 = (text: string): number | undefined => {
  const parts = text.split(".")
  // A single trailing dot is accepted by resolvers ("127.0.0.1.").
  if (parts.length > 1 && parts[parts.length - 1] === "") parts.pop()
  if (parts.length === 0 || parts.length > 4) return undefined
  const values: Array<number> = []
  for (const part of parts) {
    const value = parseIpv4Part(part)
    if (value === undefined) return undefined
    values.push(value)
  }
  // The last part fills the bytes the earlier parts left: a.b.c (c is 16 bits), a.b (b is 24 bits), a (32 bits).
  const last = values[values.length - 1]
  const lastBits = 8 * (5 - values.length)
  if (last >= 2 ** lastBits) return undefined
  let result = 0
  for (let i = 0; i < values.length - 1; i++) {
    if (values[i] > 255) return undefined
    result += values[i] * 2 ** (8 * (3 - i))
  }
  return result + last
}

const parseIpv4Part = (part: string): number | undefined => {
  if (part === "") return undefined
  let digits = part
  let radix = 10
  if (/^0x/i.test(part)) {
    digits = part.slice(2)
    radix = 16
    if (digits === "") return 0
  } else if (part.length > 1 && part.startsWith("0")) {
    digits = part.slice(1)
    radix = 8
  }
  const pattern = radix === 16 ? /^[0-9a-f]+$/i : radix === 8 ? /^[0-7]+$/ : /^[0-9]+$/
  if (!pattern.test(digits)) return undefined
  const value = parseInt(digits, radix)
  return value > 0xffffffff ? undefined : value
}

/** Parses any IPv6 text form (compressed, embedded dotted IPv4, bracketed, with a zone id) into 16 bytes. */
export const parseIpv6 = (text: string): Uint8Array | undefined => {
  let s = text
  if (s.startsWith("[") && s.endsWith("]")) s = s.slice(1, -1)
  const zone = s.indexOf("%")
  if (zone >= 0) s = s.slice(0, zone)
  if (!s.includes(":")) return undefined
  const groups: Array<number> = []
  // An embedded dotted IPv4 tail takes the last two groups.
  const lastColon = s.lastIndexOf(":")
  const tail = s.slice(lastColon + 1)
  if (tail.includes(".")) {
    if (!/^\d{1,3}(\.\d{1,3}){3}$/.test(tail)) return undefined
    const octets = tail.split(".").map(Number)
    if (octets.some((o) => o > 255)) return undefined
    s = `${s.slice(0, lastColon + 1)}${((octets[0] << 8) | octets[1]).toString(16)}:${((octets[2] << 8) | octets[3]).toString(16)}`
  }
  const halves = s.split("::")
  if (halves.length > 2) return undefined
  const parseGroups = (half: string): Array<number> | undefined => {
    if (half === "") return []
    const out: Array<number> = []
    for (const g of half.split(":")) {
      if (!/^[0-9a-f]{1,4}$/i.test(g)) return undefined
      out.push(parseInt(g, 16))
    }
    return out
  }
  const head = parseGroups(halves[0])
  const rest = halves.length === 2 ? parseGroups(halves[1]) : []
  if (head === undefined || rest === undefined) return undefined
  if (halves.length === 2) {
    const missing = 8 - head.length - rest.length
    if (missing < 1) return undefined
    groups.push(...head, ...Array<number>(missing).fill(0), ...rest)
  } else {
    if (head.length !== 8) return undefined
    groups.push(...head)
  }
  const bytes = new Uint8Array(16)
  groups.forEach((g, i) => {
    bytes[2 * i] = g >> 8
    bytes[2 * i + 1] = g & 0xff
  })
  return bytes
}

interface Ipv4Range {
  readonly base: number
  readonly prefix: number
  readonly name: string
}

const v4 = (dotted: string, prefix: number, name: string): Ipv4Range => ({ base: parseIpv4(dotted)!, prefix, name })

/** Ranges no scrape may reach: not globally routable, or internal by convention (RFC 6890 and friends). */
const blockedIpv4: ReadonlyArray<Ipv4Range> = [
  v4("0.0.0.0", 8, "an unspecified (this-network) address (0.0.0.0/8)"),
  v4("10.0.0.0", 8, "a private network address (10.0.0.0/8)"),
  v4("100.64.0.0", 10, "a carrier-grade NAT address (100.64.0.0/10)"),
  v4("127.0.0.0", 8, "a loopback address (127.0.0.0/8)"),
  v4("169.254.169.254", 32, "the cloud metadata endpoint (169.254.169.254)"),
  v4("169.254.0.0", 16, "a link-local address (169.254.0.0/16)"),
  v4("172.16.0.0", 12, "a private network address (172.16.0.0/12)"),
  v4("192.0.0.0", 24, "an IETF protocol assignment address (192.0.0.0/24)"),
  v4("192.0.2.0", 24, "a documentation address (192.0.2.0/24)"),
  v4("192.88.99.0", 24, "a 6to4 relay anycast address (192.88.99.0/24)"),
  v4("192.168.0.0", 16, "a private network address (192.168.0.0/16)"),
  v4("198.18.0.0", 15, "a benchmarking address (198.18.0.0/15)"),
  v4("198.51.100.0", 24, "a documentation address (198.51.100.0/24)"),
  v4("203.0.113.0", 24, "a documentation address (203.0.113.0/24)"),
  v4("224.0.0.0", 4, "a multicast address (224.0.0.0/4)"),
  v4("255.255.255.255", 32, "the broadcast address (255.255.255.255)"),
  v4("240.0.0.0", 4, "a reserved address (240.0.0.0/4)")
]

const inV4 = (address: number, range: Ipv4Range): boolean => {
  const size = 2 ** (32 - range.prefix)
  return Math.floor(address / size) === Math.floor(range.base / size)
}

/**
 * The blocked range an IPv4 address (as a 32-bit number) falls in, or undefined when it is public.
 * Ranges are described as noun phrases with their article ("a loopback address (127.0.0.0/8)"),
 * so messages read "<address> is <range>".
 */
export const blockedIpv4Range = (address: number): string | undefined =>
  blockedIpv4.find((range) => inV4(address, range))?.name

const startsWith = (bytes: Uint8Array, prefix: ReadonlyArray<number>, bits: number): boolean => {
  for (let bit = 0; bit < bits; bit += 8) {
    const i = bit / 8
    const take = Math.min(8, bits - bit)
    const mask = (0xff << (8 - take)) & 0xff
    if ((bytes[i] & mask) !== ((prefix[i] ?? 0) & mask)) return false
  }
  return true
}

const embeddedV4 = (bytes: Uint8Array, at: number): number =>
  bytes[at] * 2 ** 24 + (bytes[at + 1] << 16) + (bytes[at + 2] << 8) + bytes[at + 3]

const allZero = (bytes: Uint8Array, from: number, to: number): boolean => bytes.subarray(from, to).every((b) => b === 0)

/** The blocked range a 16-byte IPv6 address falls in, or undefined when it is public. */
export const blockedIpv6Range = (bytes: Uint8Array): string | undefined => {
  if (allZero(bytes, 0, 16)) return "the unspecified address (::)"
  if (allZero(bytes, 0, 15) && bytes[15] === 1) return "the loopback address (::1)"
  // Forms that carry an IPv4 address: judge the IPv4 address they lead to.
  const viaV4 = (at: number, form: string): string | undefined => {
    const range = blockedIpv4Range(embeddedV4(bytes, at))
    return range === undefined ? undefined : `${range}, reached through ${form}`
  }
  if (allZero(bytes, 0, 10) && bytes[10] === 0xff && bytes[11] === 0xff) return viaV4(12, "an IPv4-mapped IPv6 address (::ffff:0:0/96)")
  if (allZero(bytes, 0, 12)) return viaV4(12, "an IPv4-compatible IPv6 address (::/96)")
  // ::ffff:0:a.b.c.d (SIIT translated addresses).
  if (allZero(bytes, 0, 8) && bytes[8] === 0xff && bytes[9] === 0xff && allZero(bytes, 10, 12)) return viaV4(12, "an IPv4-translated IPv6 address (::ffff:0:0:0/96)")
  if (startsWith(bytes, [0x00, 0x64, 0xff, 0x9b], 96) && allZero(bytes, 4, 12)) return viaV4(12, "a NAT64 address (64:ff9b::/96)")
  if (startsWith(bytes, [0x00, 0x64, 0xff, 0x9b, 0x00, 0x01], 48)) return "a local NAT64 address (64:ff9b:1::/48)"
  if (startsWith(bytes, [0x01, 0x00], 64) && allZero(bytes, 2, 8)) return "a discard-prefix address (100::/64)"
  if (startsWith(bytes, [0x20, 0x01, 0x0d, 0xb8], 32)) return "a documentation address (2001:db8::/32)"
  // Teredo hides an obfuscated IPv4 address and a relay: nothing legitimate to scrape there.
  if (startsWith(bytes, [0x20, 0x01, 0x00, 0x00], 32)) return "a Teredo tunnel address (2001::/32)"
  if (startsWith(bytes, [0x20, 0x02], 16)) return viaV4(2, "a 6to4 address (2002::/16)")
  if (startsWith(bytes, [0xfc], 7)) return "a unique local address (fc00::/7)"
  if (startsWith(bytes, [0xfe, 0x80], 10)) return "a link-local address (fe80::/10)"
  if (startsWith(bytes, [0xfe, 0xc0], 10)) return "a site-local address (fec0::/10)"
  if (startsWith(bytes, [0xff], 8)) return "a multicast address (ff00::/8)"
  return undefined
}

/**
 * The blocked range of an address given as text (IPv4 in any `inet_aton` spelling, or IPv6),
 * or undefined when it is a public address. Text that is no address at all is blocked: the
 * caller meant to hand us an address, and failing closed is the safe answer.
 */
export const blockedRange = (address: string): string | undefined => {
  const v6 = parseIpv6(address)
  if (v6 !== undefined) return blockedIpv6Range(v6)
  const v4n = parseIpv4(address)
  if (v4n !== undefined) return blockedIpv4Range(v4n)
  return "not an IP address"
}

/** True when the address may be connected to without `allowPrivate`. */
export const isPublicAddress = (address: string): boolean => blockedRange(address) === undefined
