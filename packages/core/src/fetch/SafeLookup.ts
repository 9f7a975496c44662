/**
 * SSRF guard at the two places an address is chosen: the URL's own host (an IP literal never
 * reaches DNS) and the DNS answer the socket connects to.
 *
 * The DNS check runs inside the socket's `lookup`, so the address checked is the address
 * connected to: a name that resolves to a public address for a pre-check and to 127.0.0.1 a
 * moment later (DNS rebinding) is still refused. A refusal surfaces from the socket as a
 * `BlockedAddressError`, which the fetcher turns into the `UrlBlocked` reason.
 */
import dns from "node:dns"
import { isIP, type LookupFunction } from "node:net"
import { blockedRange } from "./IpClassifier.ts"

/** Raised (through the socket's error event) when a host resolves to a blocked address. */
export class BlockedAddressError extends Error {
  readonly code = "ERR_STRATA_BLOCKED_ADDRESS"
  readonly host: string
  readonly address: string
  readonly range: string
  constructor(host: string, address: string, range: string) {
    super(`${host} resolves to ${address}, ${range}`)
    this.host = host
    this.address = address
    this.range = range
  }
}

export interface ResolvedAddress {
  readonly address: string
  readonly family: number
}

/** The resolver the guard wraps: `dns.lookup` with `all: true` in production. */
export type Resolver = (hostname: string, family: number, callback: (error: NodeJS.ErrnoException | null, addresses: ReadonlyArray<ResolvedAddress>) => void) => void

const systemResolver: Resolver = (hostname, family, callback) =>
  dns.lookup(hostname, { all: true, family, verbatim: true }, (error, addresses) => callback(error, addresses ?? []))

/** The host of a URL as a connect target: IPv6 brackets removed. */
export const connectHost = (url: URL): string => url.hostname.replace(/^\[(.*)\]$/, "$1")

/** For an IP-literal host, the blocked range it falls in (or undefined); for a name, undefined (DNS decides). */
export const blockedLiteral = (url: URL): { readonly address: string; readonly range: string } | undefined => {
  const host = connectHost(url)
  if (isIP(host) === 0) return undefined
  const range = blockedRange(host)
  return range === undefined ? undefined : { address: host, range }
}

/**
 * A `lookup` for `net.connect` that refuses a name when ANY of its addresses is blocked: with
 * happy-eyeballs the socket may try every address, and a mixed answer is a rebinding attempt.
 */
export const makeGuardedLookup = (resolve: Resolver = systemResolver): LookupFunction =>
  ((hostname: string, options: dns.LookupOptions | number, callback: (...args: Array<unknown>) => void) => {
    const opts: dns.LookupOptions = typeof options === "number" ? { family: options } : options ?? {}
    const family = typeof opts.family === "number" ? opts.family : opts.family === "IPv6" ? 6 : opts.family === "IPv4" ? 4 : 0
    resolve(hostname, family, (error, addresses) => {
      if (error !== null) return callback(error)
      if (addresses.length === 0) {
        const notFound: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`)
        notFound.code = "ENOTFOUND"
        return callback(notFound)
      }
      for (const { address } of addresses) {
        const range = blockedRange(address)
        if (range !== undefined) return callback(new BlockedAddressError(hostname, address, range))
      }
      if (opts.all === true) return callback(null, addresses.map((a) => ({ address: a.address, family: a.family })))
      callback(null, addresses[0].address, addresses[0].family)
    })
  }) as LookupFunction
