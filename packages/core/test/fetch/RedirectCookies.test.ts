/** The per-fetch cookie jar: domain, path and secure scoping, deletion, and refusal of foreign domains. */
import { describe, expect, it } from "vitest"
import { RedirectCookies } from "../../src/fetch/RedirectCookies.ts"
import { headersForRedirect, sameSite } from "../../src/fetch/RequestHeaders.ts"

describe("RedirectCookies", () => {
  it("scopes cookies by host, domain, path and scheme", () => {
    const jar = new RedirectCookies()
    jar.store(new URL("https://www.example.com/start"), ["host=1", "dom=2; Domain=.example.com", "deep=3; Path=/a", "sec=4; Secure", "foreign=5; Domain=evil.com"])
    expect(jar.headerFor(new URL("https://www.example.com/a/x"))).toBe("deep=3; host=1; dom=2; sec=4")
    expect(jar.headerFor(new URL("https://shop.example.com/"))).toBe("dom=2")
    expect(jar.headerFor(new URL("http://www.example.com/"))).toBe("host=1; dom=2")
    expect(jar.headerFor(new URL("https://evil.com/"))).toBeUndefined()
    expect(jar.headerFor(new URL("https://www.example.com/ab"))).toBe("host=1; dom=2; sec=4")
  })

  it("replaces and deletes cookies", () => {
    const jar = new RedirectCookies()
    const url = new URL("http://example.com/")
    jar.store(url, ["a=1", "b=2"])
    jar.store(url, ["a=3", "b=; Max-Age=0"])
    expect(jar.headerFor(url)).toBe("a=3")
    jar.store(url, ["a=x; Expires=Thu, 01 Jan 1970 00:00:00 GMT"])
    expect(jar.headerFor(url)).toBeUndefined()
  })
})

describe("headersForRedirect", () => {
  it("keeps authorization within the origin and the caller's cookie within the site", () => {
    const headers = { authorization: "Bearer t", cookie: "s=1", "x-other": "y" }
    const from = new URL("https://example.com/")
    expect(headersForRedirect(headers, from, new URL("https://example.com/next"))).toEqual(headers)
    expect(headersForRedirect(headers, from, new URL("https://www.example.com/"))).toEqual({ cookie: "s=1", "x-other": "y" })
    expect(headersForRedirect(headers, from, new URL("https://other.org/"))).toEqual({ "x-other": "y" })
    expect(sameSite("a.example.com", "b.example.com")).toBe(true)
    expect(sameSite("example.com", "example.org")).toBe(false)
  })
})
