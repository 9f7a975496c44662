/**
 * Credentials never reach the request log: `withoutCredentials` on its own, the log writer over
 * every field, and the target URL of a real scrape request logged by the running server.
 */
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { withoutCredentials, writeRequestLog } from "../src/RequestLog.ts"
import { pipelineDouble, startTestServer, type TestServer } from "./support.ts"

describe("withoutCredentials", () => {
  it.each([
    ["https://user:pass@host.example/", "https://host.example/"],
    ["https://user@host.example/a?b=c#d", "https://host.example/a?b=c#d"],
    ["http://user:p@ss@host.example:8080/x", "http://host.example:8080/x"],
    ["ftp://anonymous:me%40example.com@files.example/pub", "ftp://files.example/pub"],
    ["fetching https://a:b@one.example/ then http://c:d@two.example/", "fetching https://one.example/ then http://two.example/"],
    ["https://host.example/path/user@example.com", "https://host.example/path/user@example.com"],
    ["https://host.example/?to=user:pass@other.example", "https://host.example/?to=user:pass@other.example"],
    ["mail me at someone@example.com", "mail me at someone@example.com"],
    ["https://host.example/", "https://host.example/"]
  ])("%s -> %s", (input, expected) => {
    expect(withoutCredentials(input)).toBe(expected)
  })
})

describe("writeRequestLog", () => {
  it("removes credentials from every string it writes, nested ones included", () => {
    const lines: Array<string> = []
    writeRequestLog((line) => lines.push(line), {
      requestId: "r1",
      method: "POST",
      path: "/v2/scrape",
      status: 500,
      ms: 1,
      target: "https://alice:s3cret@example.com/private",
      failure: "FetchFailed: could not reach https://alice:s3cret@example.com/private",
      redirects: ["https://bob:hunter2@example.org/"]
    })
    const entry = JSON.parse(lines[0])
    expect(entry).toMatchObject({
      target: "https://example.com/private",
      failure: "FetchFailed: could not reach https://example.com/private",
      redirects: ["https://example.org/"],
      level: "error"
    })
    expect(lines[0]).not.toMatch(/s3cret|hunter2|alice|bob/)
  })
})

describe("the server's log line", () => {
  const KEY = "fc-request-log-test-key"
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer(
      pipelineDouble({
        scrape: () => Effect.succeed({ markdown: "# ok", metadata: { statusCode: 200 } }),
        parse: () => Effect.succeed({ markdown: "" })
      }),
      { apiKeys: [KEY] }
    )
  })
  afterAll(() => server.close())

  it("logs the target URL without its user name and password", async () => {
    const response = await fetch(`${server.url}/v2/scrape`, {
      method: "POST",
      headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json", "x-request-id": "creds-1" },
      body: JSON.stringify({ url: "https://admin:topsecret@intranet.example.com/report?id=7" })
    })
    expect(response.status).toBe(200)
    const line = server.logs.find((entry) => entry.requestId === "creds-1")
    expect(line?.target).toBe("https://intranet.example.com/report?id=7")
    expect(JSON.stringify(server.logs)).not.toMatch(/topsecret|admin:/)
  })
})
