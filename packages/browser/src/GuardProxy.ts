/**
 * SSRF inside the browser: Chromium sends every request through this forward proxy on
 * loopback, which applies the fetch engine's address policy to each one after DNS.
 *
 * A proxy rather than Playwright's request routing, because routing sees only the first URL of
 * a redirect chain and leaves DNS to Chromium (a name may resolve to a public address for our
 * check and to 127.0.0.1 for Chromium's connect). Here the proxy resolves the name itself with
 * the guarded lookup and connects to the address it checked, on every hop: navigations,
 * redirects, subresources, fetch/XHR and websockets (Chromium tunnels those with CONNECT).
 * Playwright forces loopback through the proxy as well (`<-loopback>`), so 127.0.0.1 is checked
 * like any other address.
 *
 * The proxy is on loopback, where any local process could use it to reach private addresses
 * past the policy of a server that allows them: every request must carry `Proxy-Authorization`
 * with a random credential made when the proxy starts, which only our Chromium is given (through
 * Playwright's proxy options). A request without it answers 407.
 *
 * A refusal answers 403 with `x-strata-blocked` (plain HTTP) or a refused tunnel (HTTPS); an
 * upstream failure answers 502 with `x-strata-proxy-error`. Refusals and failures are also kept
 * by host and port for a minute, so the engine can name them when the main navigation fails.
 */
import { BlockedAddressError, blockedLiteral, isBadPort, makeGuardedLookup } from "@strata/core"
import { Effect, type Scope } from "effect"
import { randomBytes, timingSafeEqual } from "node:crypto"
import http from "node:http"
import type { AddressInfo, LookupFunction, Socket } from "node:net"
import net from "node:net"

export interface GuardPolicy {
  /** Let the page reach loopback and private addresses. */
  readonly allowPrivate: boolean
  /** Origins exempt from the private-address rule (compared by host and port). */
  readonly allowedOrigins?: ReadonlyArray<string> | undefined
  /**
   * Names the proxy resolves to these addresses instead of asking DNS, like curl's `--resolve`
   * (tests: a third-party host name served on loopback). The address still passes the policy.
   */
  readonly hosts?: Readonly<Record<string, string>> | undefined
}

/** Why the proxy did not carry a request to its target. */
export interface ProxyRefusal {
  readonly kind: "blocked" | "dns" | "connection"
  readonly message: string
}

export interface GuardProxy {
  /** `http://127.0.0.1:<port>`, for Chromium's `--proxy-server`. */
  readonly url: string
  /** The credential every request must carry (Basic, in `Proxy-Authorization`); new for every proxy. */
  readonly credentials: { readonly username: string; readonly password: string }
  /** The last refusal for `host:port` within the last minute. */
  readonly refusalFor: (hostPort: string) => ProxyRefusal | undefined
  /** The refusal known before any DNS (an internal IP literal, a port of another protocol), for the page's own URL. */
  readonly refuses: (url: URL) => ProxyRefusal | undefined
}

const hopByHop = new Set(["connection", "keep-alive", "proxy-connection", "proxy-authorization", "proxy-authenticate", "te", "trailer", "upgrade"])
const REFUSAL_TTL_MS = 60_000
const MAX_REFUSALS = 512

const hostPortOf = (host: string, port: number): string => `${host.includes(":") ? `[${host}]` : host}:${port}`

const refusalOf = (error: unknown, target: string): ProxyRefusal => {
  if (error instanceof BlockedAddressError) {
    return { kind: "blocked", message: `${error.host} resolves to ${error.address}, ${error.range}` }
  }
  const code = String((error as NodeJS.ErrnoException | undefined)?.code ?? "")
  const dns = code === "ENOTFOUND" || code.startsWith("EAI_")
  return { kind: dns ? "dns" : "connection", message: `${target}: ${dns ? "the host name could not be resolved" : "the connection failed"} (${code || String(error)})` }
}

/** Starts the proxy; it stops, with every connection through it, when the scope closes. */
export const startGuardProxy = (policy: GuardPolicy): Effect.Effect<GuardProxy, never, Scope.Scope> =>
  Effect.gen(function*() {
    const allowed = new Set(
      (policy.allowedOrigins ?? []).filter((o) => URL.canParse(o)).map((o) => {
        const url = new URL(o)
        return hostPortOf(url.hostname.replace(/^\[(.*)\]$/, "$1"), Number(url.port || (url.protocol === "https:" ? 443 : 80)))
      })
    )
    const guarded = makeGuardedLookup()
    const credentials = { username: "strata", password: randomBytes(24).toString("base64url") }
    const expected = Buffer.from(`Basic ${Buffer.from(`${credentials.username}:${credentials.password}`).toString("base64")}`)
    const authorized = (request: http.IncomingMessage): boolean => {
      const given = Buffer.from(request.headers["proxy-authorization"] ?? "")
      return given.length === expected.length && timingSafeEqual(given, expected)
    }
    const challenge = { "proxy-authenticate": `Basic realm="strata"`, "content-type": "text/plain" }
    const refusals = new Map<string, { readonly refusal: ProxyRefusal; readonly at: number }>()
    const remember = (hostPort: string, refusal: ProxyRefusal) => {
      refusals.delete(hostPort)
      refusals.set(hostPort, { refusal, at: Date.now() })
      if (refusals.size > MAX_REFUSALS) refusals.delete(refusals.keys().next().value as string)
    }
    const refusalFor = (hostPort: string): ProxyRefusal | undefined => {
      const entry = refusals.get(hostPort)
      return entry !== undefined && Date.now() - entry.at < REFUSAL_TTL_MS ? entry.refusal : undefined
    }

    const mapped = new Map(Object.entries(policy.hosts ?? {}).map(([name, address]) => [name.toLowerCase(), address]))
    const fixedLookup = (address: string): LookupFunction => (_name, options, callback) => {
      const family = net.isIPv6(address) ? 6 : 4
      if (options.all) (callback as (error: null, all: Array<{ address: string; family: number }>) => void)(null, [{ address, family }])
      else callback(null, address, family)
    }

    /** The policy's answer before connecting: a refusal, or the lookup to connect with (undefined: the system's). */
    const check = (url: URL): { readonly refusal: ProxyRefusal } | { readonly lookup: LookupFunction | undefined } => {
      const host = url.hostname.replace(/^\[(.*)\]$/, "$1")
      const address = mapped.get(host.toLowerCase())
      const open = policy.allowPrivate || allowed.has(hostPortOf(host, Number(url.port || (url.protocol === "https:" ? 443 : 80))))
      if (address !== undefined) {
        const literal = open ? undefined : blockedLiteral(new URL(`http://${address.includes(":") ? `[${address}]` : address}/`))
        return literal === undefined ? { lookup: fixedLookup(address) } : { refusal: { kind: "blocked", message: `${host} resolves to ${literal.address}, ${literal.range}` } }
      }
      if (open) return { lookup: undefined }
      const literal = blockedLiteral(url)
      if (literal !== undefined) return { refusal: { kind: "blocked", message: `${literal.address} is ${literal.range}` } }
      if (isBadPort(url)) return { refusal: { kind: "blocked", message: `port ${url.port} belongs to another protocol` } }
      return { lookup: guarded }
    }

    const sockets = new Set<Socket>()
    const track = (socket: Socket) => {
      sockets.add(socket)
      socket.once("close", () => sockets.delete(socket))
    }
    const agent = new http.Agent({ keepAlive: true, maxFreeSockets: 32 })

    const server = http.createServer((request, response) => {
      if (!authorized(request)) return void response.writeHead(407, challenge).end("proxy credentials required")
      const target = URL.canParse(request.url ?? "") ? new URL(request.url as string) : undefined
      if (target === undefined || target.protocol !== "http:") {
        response.writeHead(400, { "content-type": "text/plain" }).end("absolute http URL expected")
        return
      }
      const hostPort = hostPortOf(target.hostname.replace(/^\[(.*)\]$/, "$1"), Number(target.port || 80))
      const refuse = (refusal: ProxyRefusal) => {
        remember(hostPort, refusal)
        if (response.headersSent) return void response.destroy()
        const header = refusal.kind === "blocked" ? "x-strata-blocked" : "x-strata-proxy-error"
        response.writeHead(refusal.kind === "blocked" ? 403 : 502, { "content-type": "text/plain", [header]: refusal.kind === "blocked" ? refusal.message : refusal.kind })
          .end(refusal.message)
      }
      const decision = check(target)
      if ("refusal" in decision) return refuse(decision.refusal)
      const headers: Record<string, string | Array<string>> = {}
      for (const [name, value] of Object.entries(request.headers)) {
        if (value !== undefined && !hopByHop.has(name)) headers[name] = value
      }
      const upstream = http.request({
        host: target.hostname.replace(/^\[(.*)\]$/, "$1"),
        port: target.port || 80,
        method: request.method,
        path: `${target.pathname}${target.search}`,
        headers,
        agent,
        ...(decision.lookup === undefined ? {} : { lookup: decision.lookup })
      }, (reply) => {
        const raw: Array<string> = []
        for (let i = 0; i < reply.rawHeaders.length; i += 2) {
          if (!hopByHop.has(reply.rawHeaders[i].toLowerCase())) raw.push(reply.rawHeaders[i], reply.rawHeaders[i + 1])
        }
        response.writeHead(reply.statusCode ?? 502, reply.statusMessage, raw)
        reply.pipe(response)
        reply.once("error", () => response.destroy())
      })
      upstream.once("error", (error) => refuse(refusalOf(error, hostPort)))
      response.once("close", () => upstream.destroy())
      request.pipe(upstream)
    })

    // HTTPS and websockets: a tunnel to the checked address, or a refusal.
    server.on("connect", (request: http.IncomingMessage, client: Socket, head: Buffer) => {
      track(client)
      if (!authorized(request)) return void client.end(`HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="strata"\r\nContent-Length: 0\r\n\r\n`)
      const target = URL.canParse(`https://${request.url ?? ""}`) ? new URL(`https://${request.url}`) : undefined
      const port = target === undefined ? NaN : Number(target.port || 443)
      if (target === undefined || !Number.isInteger(port)) return void client.end("HTTP/1.1 400 Bad Request\r\n\r\n")
      const host = target.hostname.replace(/^\[(.*)\]$/, "$1")
      const hostPort = hostPortOf(host, port)
      const refuse = (refusal: ProxyRefusal) => {
        remember(hostPort, refusal)
        client.end(`HTTP/1.1 ${refusal.kind === "blocked" ? "403 Forbidden" : "502 Bad Gateway"}\r\n\r\n`)
      }
      const decision = check(target)
      if ("refusal" in decision) return refuse(decision.refusal)
      const upstream = net.connect({ host, port, ...(decision.lookup === undefined ? {} : { lookup: decision.lookup }) })
      track(upstream)
      let connected = false
      upstream.once("connect", () => {
        connected = true
        client.write("HTTP/1.1 200 Connection Established\r\n\r\n")
        if (head.length > 0) upstream.write(head)
        upstream.pipe(client)
        client.pipe(upstream)
      })
      upstream.once("error", (error) => {
        if (connected) client.destroy()
        else refuse(refusalOf(error, hostPort))
      })
      client.once("error", () => upstream.destroy())
      client.once("close", () => upstream.destroy())
    })
    // Plain-HTTP upgrades do not come here (Chromium tunnels websockets): refuse rather than pass unchecked.
    server.on("upgrade", (_request, socket: Socket) => socket.destroy())
    server.on("connection", track)

    const port = yield* Effect.acquireRelease(
      Effect.callback<number>((resume) => {
        server.listen(0, "127.0.0.1", () => resume(Effect.succeed((server.address() as AddressInfo).port)))
        // Listening alone does not keep the process alive (a script that forgot to dispose still exits).
        server.unref()
      }),
      () =>
        Effect.callback<void>((resume) => {
          agent.destroy()
          for (const socket of sockets) socket.destroy()
          server.close(() => resume(Effect.void))
        })
    )
    const refuses = (url: URL): ProxyRefusal | undefined => {
      const decision = check(url)
      return "refusal" in decision ? decision.refusal : undefined
    }
    return { url: `http://127.0.0.1:${port}`, credentials, refusalFor, refuses }
  })
