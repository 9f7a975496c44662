/** Socket, DNS and TLS errors become the right FetchFailed kind; an SSRF refusal becomes UrlBlocked. */
import { describe, expect, it } from "vitest"
import { fetchFailure } from "../../src/fetch/FetchFailure.ts"
import { BlockedAddressError } from "../../src/fetch/SafeLookup.ts"

const nodeError = (code: string, message = code): NodeJS.ErrnoException => Object.assign(new Error(message), { code })

describe("fetchFailure", () => {
  it("names the failing layer by the error code", () => {
    const cases: Array<[string, string]> = [
      ["ENOTFOUND", "dns"], ["EAI_AGAIN", "dns"], ["ECONNREFUSED", "connection"], ["ECONNRESET", "connection"], ["ETIMEDOUT", "connection"],
      ["DEPTH_ZERO_SELF_SIGNED_CERT", "tls"], ["CERT_HAS_EXPIRED", "tls"], ["ERR_TLS_CERT_ALTNAME_INVALID", "tls"], ["UNABLE_TO_VERIFY_LEAF_SIGNATURE", "tls"],
      ["ERR_SSL_WRONG_VERSION_NUMBER", "tls"], ["HPE_INVALID_CONSTANT", "protocol"], ["SOMETHING_ELSE", "connection"]
    ]
    for (const [code, kind] of cases) {
      const reason = fetchFailure(nodeError(code), "https://example.com/").reason
      expect(reason._tag, code).toBe("FetchFailed")
      expect(reason._tag === "FetchFailed" && reason.kind, code).toBe(kind)
      expect(reason.message, code).toContain("https://example.com/")
    }
  })

  it("turns a refused DNS answer into UrlBlocked naming the address", () => {
    const reason = fetchFailure(new BlockedAddressError("internal.example", "10.0.0.7", "a private network address (10.0.0.0/8)"), "http://internal.example/").reason
    expect(reason._tag).toBe("UrlBlocked")
    expect(reason.message).toMatch(/10\.0\.0\.7.*private network/)
  })
})
