/**
 * Names what went wrong when a request failed below HTTP: turns Node's socket, DNS and TLS
 * errors into the pipeline's `FetchFailed` / `UrlBlocked` reasons with a message a user can act on.
 */
import { FetchFailed, ScrapeError, scrapeError, UrlBlocked } from "../ScrapeError.ts"
import { BlockedAddressError } from "./SafeLookup.ts"

type Kind = FetchFailed["kind"]

const dnsCodes = new Set(["ENOTFOUND", "EAI_AGAIN", "EAI_FAIL", "EAI_NONAME", "EAI_NODATA", "ENODATA", "ESERVFAIL", "ENONAME"])
const connectionCodes = new Set([
  "ECONNREFUSED", "ECONNRESET", "EHOSTUNREACH", "ENETUNREACH", "ETIMEDOUT", "EPIPE", "ECONNABORTED", "EADDRNOTAVAIL",
  "ENETDOWN", "EHOSTDOWN", "UND_ERR_SOCKET", "ERR_SOCKET_CONNECTION_TIMEOUT"
])

const isTlsCode = (code: string): boolean =>
  code.startsWith("ERR_TLS_") || code.startsWith("ERR_SSL_") || code.startsWith("CERT_") || code.includes("CERT") ||
  code === "DEPTH_ZERO_SELF_SIGNED_CERT" || code === "SELF_SIGNED_CERT_IN_CHAIN" || code === "UNABLE_TO_VERIFY_LEAF_SIGNATURE" ||
  code === "UNABLE_TO_GET_ISSUER_CERT" || code === "UNABLE_TO_GET_ISSUER_CERT_LOCALLY" || code === "HOSTNAME_MISMATCH" || code === "EPROTO"

const kindOf = (code: string): Kind =>
  dnsCodes.has(code) ? "dns" : isTlsCode(code) ? "tls" : connectionCodes.has(code) ? "connection" : code.startsWith("HPE_") ? "protocol" : "connection"

const explain: Record<Kind, string> = {
  dns: "the host name could not be resolved",
  connection: "the connection failed",
  tls: "the TLS handshake failed (set skipTlsVerification to accept invalid certificates)",
  protocol: "the server's response is not valid HTTP",
  too_large: "the response is too large",
  redirects: "too many redirects",
  decode: "the response could not be decoded"
}

/** The reason for an error raised by `http.request` or its socket while fetching `url`. */
export const fetchFailure = (error: unknown, url: string): ScrapeError => {
  if (error instanceof ScrapeError) return error
  if (error instanceof BlockedAddressError) {
    return scrapeError(new UrlBlocked({ url, message: `Refusing to fetch ${url}: ${error.host} resolves to ${error.address}, ${error.range}. Set STRATA_ALLOW_PRIVATE_URLS=1 to allow private addresses.` }))
  }
  const code = String((error as NodeJS.ErrnoException | undefined)?.code ?? "")
  const detail = error instanceof Error ? error.message : String(error)
  const kind = kindOf(code)
  return scrapeError(new FetchFailed({ kind, url, message: `Could not fetch ${url}: ${explain[kind]} (${code === "" ? detail : `${code}: ${detail}`})` }))
}
