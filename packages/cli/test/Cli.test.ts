/** The strata command line, run in-process against a page served on loopback and a local file. */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { mkdtemp, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { main } from "../src/index.ts"

let server: Server
let base = ""

const capture = () => {
  const out: Array<string> = []
  const err: Array<string> = []
  return { io: { out: (t: string) => out.push(t), err: (t: string) => err.push(t) }, out, err }
}

beforeAll(async () => {
  process.env.STRATA_ALLOW_PRIVATE_URLS = "1"
  server = createServer((_req, res) => {
    res.setHeader("content-type", "text/html")
    res.end(`<html><head><title>CLI</title></head><body><article><h1>From the CLI</h1><p>${"Plain content for the command line test. ".repeat(6)}</p><a href="/next">next</a></article></body></html>`)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterAll(() => {
  server.closeAllConnections()
  server.close()
})

describe("strata CLI", () => {
  it("prints markdown for scrape", async () => {
    const { io, out } = capture()
    expect(await main(["scrape", `${base}/`], io)).toBe(0)
    expect(out.join("")).toContain("# From the CLI")
  })

  it("prints the whole data object with --json", async () => {
    const { io, out } = capture()
    expect(await main(["scrape", `${base}/`, "--formats", "markdown,links", "--json"], io)).toBe(0)
    const data = JSON.parse(out.join(""))
    expect(data.links).toContain(`${base}/next`)
    expect(data.metadata.title).toBe("CLI")
  })

  it("parses a local file", async () => {
    const dir = await mkdtemp(join(tmpdir(), "strata-cli-"))
    const file = join(dir, "table.csv")
    await writeFile(file, "name,qty\napple,3\npear,5\n")
    const { io, out } = capture()
    expect(await main(["parse", file], io)).toBe(0)
    expect(out.join("")).toMatch(/\|\s*name\s*\|\s*qty\s*\|/)
  })

  it("exits 1 with the reason on a failed scrape and 2 on bad usage", async () => {
    const failed = capture()
    expect(await main(["scrape", `${base}/`, "--formats", "images"], failed.io)).toBe(1)
    expect(failed.err.join("")).toContain("NotSupported")
    const usage = capture()
    expect(await main(["frobnicate"], usage.io)).toBe(2)
  })
})
