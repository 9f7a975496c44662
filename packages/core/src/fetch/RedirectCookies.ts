/**
 * The cookies one fetch collects while it follows redirects.
 *
 * Sites commonly answer a first visit with "Set-Cookie + redirect to the same URL" (consent,
 * session or bot checks); without sending the cookie back, the client loops. The jar lives for
 * one fetch only: nothing is kept between scrapes. Domain and path scoping follow RFC 6265 in
 * the simple form that matters for redirects; expiry is only honoured as deletion.
 */

interface StoredCookie {
  readonly name: string
  readonly value: string
  readonly domain: string
  /** True when the cookie came without a Domain attribute: it goes back to that exact host only. */
  readonly hostOnly: boolean
  readonly path: string
  readonly secure: boolean
}

const defaultPath = (url: URL): string => {
  const p = url.pathname
  const slash = p.lastIndexOf("/")
  return slash <= 0 ? "/" : p.slice(0, slash)
}

const domainMatches = (host: string, cookie: StoredCookie): boolean =>
  cookie.hostOnly ? host === cookie.domain : host === cookie.domain || host.endsWith(`.${cookie.domain}`)

const pathMatches = (path: string, cookiePath: string): boolean =>
  path === cookiePath || (path.startsWith(cookiePath) && (cookiePath.endsWith("/") || path[cookiePath.length] === "/"))

export class RedirectCookies {
  private cookies: Array<StoredCookie> = []

  /** Records the `Set-Cookie` headers of a response to `url`. */
  store(url: URL, setCookie: ReadonlyArray<string>): void {
    for (const line of setCookie) {
      const [pair, ...attributeParts] = line.split(";")
      const eq = pair.indexOf("=")
      if (eq <= 0) continue
      const name = pair.slice(0, eq).trim()
      const value = pair.slice(eq + 1).trim()
      let domain = url.hostname
      let hostOnly = true
      let path = defaultPath(url)
      let secure = false
      let expired = false
      for (const part of attributeParts) {
        const [rawKey, ...rest] = part.split("=")
        const key = rawKey.trim().toLowerCase()
        const attr = rest.join("=").trim()
        if (key === "domain" && attr !== "") {
          const d = attr.replace(/^\./, "").toLowerCase()
          // A site may only set cookies for itself or a parent domain, never for an unrelated one.
          if (url.hostname !== d && !url.hostname.endsWith(`.${d}`)) {
            expired = true
            break
          }
          domain = d
          hostOnly = false
        } else if (key === "path" && attr.startsWith("/")) path = attr
        else if (key === "secure") secure = true
        else if (key === "max-age" && Number(attr) <= 0) expired = true
        else if (key === "expires" && Date.parse(attr) < Date.now()) expired = true
      }
      this.cookies = this.cookies.filter((c) => !(c.name === name && c.domain === domain && c.path === path))
      if (!expired) this.cookies.push({ name, value, domain, hostOnly, path, secure })
    }
  }

  /** The `cookie` header value for a request to `url`, or undefined when no cookie applies. */
  headerFor(url: URL): string | undefined {
    const host = url.hostname
    const matching = this.cookies
      .filter((c) => domainMatches(host, c) && pathMatches(url.pathname, c.path) && (!c.secure || url.protocol === "https:"))
      // RFC 6265: longer paths first.
      .sort((a, b) => b.path.length - a.path.length)
    return matching.length === 0 ? undefined : matching.map((c) => `${c.name}=${c.value}`).join("; ")
  }
}
