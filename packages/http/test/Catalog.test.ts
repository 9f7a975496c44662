/**
 * Catalog calls and `domainTools` through the real server on SQLite (the cases in
 * CatalogCases.ts), and through the official SDK (`@mendable/firecrawl-js`), unchanged: its
 * `findTools()` (which names the discovery provider `firecrawl`) and `scrape({ alexandria })`.
 */
import Firecrawl from "@mendable/firecrawl-js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { catalogCases, deploy, type Deployment, siteUrl, startSite, stopSite, teamWith } from "./CatalogCases.ts"

beforeAll(startSite)
afterAll(stopSite)

catalogCases("sqlite")

describe("the official SDK", () => {
  let deployment: Deployment
  let firecrawl: Firecrawl
  beforeAll(async () => {
    deployment = await deploy("sqlite")
    firecrawl = new Firecrawl({ apiKey: await teamWith(deployment, "sdk", { credits: 10 }), apiUrl: deployment.server.url })
  }, 60_000)
  afterAll(() => deployment?.close())

  it("findTools() pages through the catalog", async () => {
    const page = await firecrawl.findTools({ providers: ["web"], limit: 3 })
    expect(page.level).toBe("tools")
    expect(page.total).toBe(4)
    expect(page.items.map((item) => item.id)).toEqual(["web/scrape", "web/links", "web/metadata"])
    expect(page.next).toMatchObject({ capability: "find-tools", options: { offset: 3 } })
  })

  it("scrape({ alexandria }) runs tools and reports the credits; an unknown provider is a 404 SdkError", async () => {
    const result = await firecrawl.scrape({
      alexandria: [{ provider: "web", capability: "metadata", options: { url: `${siteUrl}/sdk` } }]
    })
    expect(result.creditsCost).toBe(1)
    expect(result.alexandria[0]).toMatchObject({ provider: "web", capability: "metadata", creditsCost: 1 })
    expect((result.alexandria[0].data as { metadata: { title: string } }).metadata.title).toBe("Tide pools /sdk")
    await expect(firecrawl.scrape({ alexandria: [{ provider: "nowhere", capability: "x" }] })).rejects.toMatchObject({
      status: 404,
      code: "unknown_provider"
    })
  })
})
