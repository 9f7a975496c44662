/**
 * The catalog cases every backend runs, through the real server (the real pipeline,
 * `StrataLive`) on loopback: `Catalog.test.ts` runs them on SQLite,
 * `CatalogPostgres.integration.test.ts` on Postgres. Teams are set up through the Store on the
 * server's own database; terms are accepted with the real `strata catalog accept-terms` command
 * on that database; a page server that counts its hits proves what was (not) executed. Beside the
 * built-in providers, the server gets one operator provider (`tides`) that declares terms and
 * charges per record, registered the way any operator's would be.
 */
import { CatalogRegistry, CatalogResponse, DiscoveredTool, Store, type TeamSettings, tool } from "@strata/core"
import { layerPg, layerSqlite, sqliteFileIn } from "@strata/store"
import { Effect, type Layer, ManagedRuntime, Redacted, Schema } from "effect"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { PDFDocument, StandardFonts } from "pdf-lib"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { catalogCommand } from "../../cli/src/CatalogTerms.ts"
import { startTestServer, tempDir, type TestServer } from "./support.ts"

let site: Server
export let siteUrl = ""
const hits = new Map<string, number>()
export const hitsOf = (path: string) => hits.get(path) ?? 0
const allowPrivateBefore = process.env.STRATA_ALLOW_PRIVATE_URLS

const article = (path: string) =>
  `<!doctype html><html lang="en"><head><title>Tide pools ${path}</title><meta name="description" content="A guide to ${path}."></head>` +
  `<body><main><h1>Tide pools</h1><p>Anemones close at low tide; see <a href="/species/anemone">anemones</a> ` +
  `and <a href="/species/urchin">urchins</a>.</p></main></body></html>`

const sitemap = (base: string) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` +
  ["a", "b", "c"].map((p, n) => `<url><loc>${base}/pages/${p}?x=1&amp;y=2</loc><lastmod>2026-0${n + 1}-01</lastmod></url>`).join("") +
  `</urlset>`

export const startSite = async () => {
  process.env.STRATA_ALLOW_PRIVATE_URLS = "1"
  const pdf = await PDFDocument.create()
  const font = await pdf.embedFont(StandardFonts.Helvetica)
  const lines = ["Anemones were counted in the northern pools this spring.", "Urchins grazed the southern pools bare by midsummer."]
  for (const line of lines) pdf.addPage([612, 792]).drawText(line, { x: 72, y: 420, size: 14, font })
  const pdfBytes = await pdf.save()
  site = createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://x")
    hits.set(url.pathname, hitsOf(url.pathname) + 1)
    if (url.pathname === "/sitemap.xml") {
      response.writeHead(200, { "content-type": "application/xml" })
      response.end(sitemap(siteUrl))
      return
    }
    if (url.pathname === "/survey.pdf") {
      response.writeHead(200, { "content-type": "application/pdf" })
      response.end(pdfBytes)
      return
    }
    const timer = setTimeout(() => {
      response.writeHead(200, { "content-type": "text/html; charset=utf-8" })
      response.end(article(url.pathname))
    }, Number(url.searchParams.get("ms") ?? "0"))
    response.on("close", () => clearTimeout(timer))
  })
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve))
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`
}

export const stopSite = async () => {
  if (allowPrivateBefore === undefined) delete process.env.STRATA_ALLOW_PRIVATE_URLS
  else process.env.STRATA_ALLOW_PRIVATE_URLS = allowPrivateBefore
  site?.closeAllConnections()
  await new Promise((resolve) => site?.close(resolve))
}

/** How often the `tides` provider ran: a refused request must leave it at what it was. */
export let tideRuns = 0

/** An operator's provider: terms to accept, 2 credits per record, one record per day asked for. */
const tidesProvider = CatalogRegistry.provider({
  name: "tides",
  description: "Tide tables.",
  terms: { version: "2026-01", url: "https://tides.example/terms", summary: "tide data is for non-commercial use" },
  tools: [
    tool({
      capability: "table",
      name: "Tide table",
      description: "High tides for a station, one record per day.",
      category: "sites",
      options: Schema.Struct({ station: Schema.String, days: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 7 })) }),
      response: { about: "High tides per day.", key: "days", schema: Schema.Struct({ station: Schema.String, days: Schema.Array(Schema.String) }) },
      creditsCost: 2,
      perRecord: true,
      run: (options: { readonly station: string; readonly days: number }) =>
        Effect.sync(() => {
          tideRuns++
          return { data: { station: options.station, days: Array.from({ length: options.days }, (_, n) => `day ${n + 1}`) }, records: options.days }
        })
    })
  ]
})

export type BackendName = "sqlite" | "pg"

export interface Deployment {
  readonly server: TestServer
  readonly store: ManagedRuntime.ManagedRuntime<Store, unknown>
  readonly storeLayer: Layer.Layer<Store, unknown>
  readonly close: () => Promise<void>
}

export const deploy = async (backend: BackendName): Promise<Deployment> => {
  const dataDir = tempDir("strata-catalog-")
  const storeLayer = backend === "pg"
    ? layerPg({ url: Redacted.make(process.env.STRATA_DATABASE_URL!), cacheMaxBytes: 1024 * 1024, maxConnections: 2 })
    : layerSqlite({ filename: sqliteFileIn(dataDir), cacheMaxBytes: 1024 * 1024 })
  const { Strata } = await import("strata")
  const server = await startTestServer(Strata.StrataLive, { apiKeys: ["default-key"], dataDir }, tidesProvider)
  const store = ManagedRuntime.make(storeLayer)
  return {
    server,
    store,
    storeLayer,
    close: async () => {
      await server.close()
      await store.dispose()
    }
  }
}

export const teamWith = (deployment: Deployment, teamId: string, settings: TeamSettings) =>
  deployment.store.runPromise(Effect.flatMap(Store, (store) => Effect.andThen(store.setTeam(teamId, settings), store.createKey(teamId))))
    .then((created) => created.key)

export const balanceOf = (deployment: Deployment, teamId: string) =>
  deployment.store.runPromise(Effect.flatMap(Store, (store) => store.balance(teamId)))

export const post = async (server: { url: string }, key: string, body: Record<string, unknown>, headers: Record<string, string> = {}) => {
  const response = await fetch(`${server.url}/v2/scrape`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...headers },
    body: JSON.stringify(body)
  })
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, any> }
}

const find = (options: Record<string, unknown> = {}) => ({ provider: "service", capability: "find-tools", options })

export const catalogCases = (backend: BackendName) => {
  describe(`the catalog on ${backend}`, () => {
    let deployment: Deployment
    beforeAll(async () => {
      deployment = await deploy(backend)
    }, 60_000)
    afterAll(() => deployment?.close())

    it("lists the catalog for free, page by page through `next`", async () => {
      const key = await teamWith(deployment, "explorer", { credits: 0 })
      const ids: Array<string> = []
      let call: Record<string, unknown> | null = find({ limit: 2 })
      let pages = 0
      while (call !== null && pages < 10) {
        const answer = await post(deployment.server, key, { catalog: call })
        expect(answer.status, JSON.stringify(answer.body)).toBe(200)
        expect(answer.body.success).toBe(true)
        expect(typeof answer.body.scrape_id).toBe("string")
        expect(answer.body.data.creditsCost).toBe(0)
        const page = answer.body.data.catalog[0].data
        expect(page.items.length).toBeLessThanOrEqual(2)
        ids.push(...page.items.map((item: { id: string }) => item.id))
        call = page.next
        pages++
      }
      expect(ids).toEqual([
        "service/find-tools", "sitemap/urls", "tides/table", "web/scrape", "web/links", "web/metadata", "web/parse", "wikipedia/article"
      ])
      expect(pages).toBe(4)
      const providers = await post(deployment.server, key, { catalog: find({ level: "providers", providers: ["tides", "web"] }) })
      expect(providers.body.data.catalog[0].data.items).toMatchObject([
        { id: "tides", tools: 1, terms: { version: "2026-01" } },
        { id: "web", tools: 4 }
      ])
      const expanded = await post(deployment.server, key, { catalog: find({ capabilities: ["urls"], expand: ["options", "response"] }) })
      const contract = expanded.body.data.catalog[0].data.items[0]
      expect(contract.options).toEqual(expect.arrayContaining([expect.objectContaining({ name: "url", type: "string", required: true })]))
      expect(contract.response).toMatchObject({ key: "urls" })
      expect(await balanceOf(deployment, "explorer")).toBe(0)
    })

    it("runs calls in request order and charges the sum over the ones that succeeded, once", async () => {
      const key = await teamWith(deployment, "runner", { credits: 20 })
      const before = hitsOf("/guide")
      const answer = await post(deployment.server, key, {
        catalog: [
          { provider: "web", capability: "scrape", options: { url: `${siteUrl}/guide` } },
          { provider: "sitemap", capability: "urls", options: { url: `${siteUrl}/sitemap.xml`, limit: 2 } },
          { provider: "web", capability: "links", options: { url: `${siteUrl}/guide` } },
          { provider: "web", capability: "scrape", options: { url: "http://127.0.0.1:1/closed" } },
          { provider: "web", capability: "parse", options: { url: `${siteUrl}/survey.pdf` } }
        ]
      })
      expect(answer.status, JSON.stringify(answer.body)).toBe(200)
      const [page, map, links, failed, parsed] = answer.body.data.catalog
      expect(page).toMatchObject({ provider: "web", capability: "scrape", creditsCost: 1 })
      expect(page.data.markdown).toContain("# Tide pools")
      expect(map.data.urls).toEqual([
        { loc: `${siteUrl}/pages/a?x=1&y=2`, lastmod: "2026-01-01" },
        { loc: `${siteUrl}/pages/b?x=1&y=2`, lastmod: "2026-02-01" }
      ])
      expect(map.data.total).toBe(3)
      expect(map.data.warning).toMatch(/3 entries; the first 2/)
      expect(links.data.links).toEqual(expect.arrayContaining([`${siteUrl}/species/anemone`, `${siteUrl}/species/urchin`]))
      expect(failed).toMatchObject({ provider: "web", capability: "scrape", creditsCost: 0, error: { code: "UPSTREAM_FAILED", status: 502 } })
      expect(parsed).toMatchObject({ creditsCost: 2, records: 2, data: { numPages: 2 } })
      expect(parsed.data.markdown, JSON.stringify(parsed)).toContain("Urchins grazed the southern pools")
      Schema.decodeUnknownSync(CatalogResponse)(answer.body, { onExcessProperty: "error" })
      // 1 + 1 + 1 + 0 + 2 (a page each)
      expect(answer.body.data.creditsCost).toBe(5)
      expect(await balanceOf(deployment, "runner")).toBe(15)
      expect(hitsOf("/guide")).toBeGreaterThan(before)
    })

    it("refuses url, formats or other scrape options beside catalog, and more than 10 calls, with 400", async () => {
      const key = await teamWith(deployment, "strict", {})
      const call = { provider: "web", capability: "scrape", options: { url: `${siteUrl}/strict` } }
      for (const extra of [{ url: `${siteUrl}/strict` }, { formats: ["markdown"] }, { onlyMainContent: false }]) {
        const answer = await post(deployment.server, key, { catalog: call, ...extra })
        expect(answer.status).toBe(400)
        expect(answer.body).toMatchObject({ success: false, code: "BAD_REQUEST" })
      }
      expect((await post(deployment.server, key, { catalog: Array.from({ length: 11 }, () => call) })).status).toBe(400)
      expect((await post(deployment.server, key, { catalog: [] })).status).toBe(400)
      const badOptions = await post(deployment.server, key, { catalog: [call, { ...call, options: { url: `${siteUrl}/strict`, colour: "red" } }] })
      expect(badOptions.status).toBe(400)
      expect(badOptions.body.details[0].path).toEqual(["catalog", 1, "options", "colour"])
      expect(hitsOf("/strict")).toBe(0)
    })

    it("answers 404 unknown_provider for an unknown provider or capability, with nothing executed", async () => {
      const key = await teamWith(deployment, "lost", { credits: 10 })
      const known = { provider: "web", capability: "scrape", options: { url: `${siteUrl}/lost` } }
      const provider = await post(deployment.server, key, { catalog: [known, { provider: "nowhere", capability: "scrape" }] })
      expect(provider.status).toBe(404)
      expect(provider.body).toMatchObject({ success: false, code: "unknown_provider" })
      expect(provider.body.error).toContain("nowhere")
      const capability = await post(deployment.server, key, { catalog: [known, { provider: "web", capability: "teleport" }] })
      expect(capability.status).toBe(404)
      expect(capability.body.error).toContain("teleport")
      expect(hitsOf("/lost")).toBe(0)
      expect(await balanceOf(deployment, "lost")).toBe(10)
    })

    it("answers 403 to a team without catalog access or with zero data retention, for calls and for domainTools", async () => {
      const closed = await teamWith(deployment, "closed", { catalog: false })
      const private_ = await teamWith(deployment, "private", { zdr: true })
      for (const key of [closed, private_]) {
        const calls = await post(deployment.server, key, { catalog: find() })
        expect(calls.status).toBe(403)
        expect(calls.body.success).toBe(false)
        const tools = await post(deployment.server, key, { url: `${siteUrl}/denied`, domainTools: true })
        expect(tools.status).toBe(403)
      }
      expect(hitsOf("/denied")).toBe(0)
      const open = await teamWith(deployment, "open", {})
      expect((await post(deployment.server, open, { url: `${siteUrl}/denied`, domainTools: true, zeroDataRetention: true })).status).toBe(403)
    })

    it("refuses a provider whose terms are not accepted with requiresAction, until an administrator accepts them", async () => {
      const key = await teamWith(deployment, "harbour", { credits: 20 })
      const call = { provider: "tides", capability: "table", options: { station: "Dover", days: 3 } }
      const runsBefore = tideRuns
      const refused = await post(deployment.server, key, { catalog: [find(), call] }, { "x-request-id": "tides-1" })
      expect(refused.status).toBe(403)
      expect(refused.body).toMatchObject({
        success: false,
        code: "THIRD_PARTY_DATA_TERMS_REQUIRED",
        requiresAction: { type: "accept_terms", terms: "tides", version: "2026-01", url: "https://tides.example/terms" }
      })
      expect(typeof refused.body.chargeId).toBe("string")
      const wiki = await post(deployment.server, key, { catalog: { provider: "wikipedia", capability: "article", options: { url: "https://en.wikipedia.org/wiki/Tide_pool" } } })
      expect(wiki.status).toBe(403)
      expect(wiki.body.requiresAction).toMatchObject({ terms: "wikipedia", version: "cc-by-sa-4.0" })
      expect(tideRuns).toBe(runsBefore)

      const out: Array<string> = []
      const io = { out: (text: string) => out.push(text), err: (text: string) => out.push(text) }
      expect(await catalogCommand(["catalog", "accept-terms", "tides", "--team", "harbour"], io, deployment.storeLayer)).toBe(2)
      expect(await catalogCommand(["catalog", "accept-terms", "tides", "--team", "harbour", "--version", "2026-01", "--by", "ada"], io, deployment.storeLayer)).toBe(0)
      expect(out.at(-1)).toContain("accepted for team harbour by ada")

      const ran = await post(deployment.server, key, { catalog: [find({ providers: ["tides"] }), call] }, { "x-request-id": "tides-1" })
      expect(ran.status, JSON.stringify(ran.body)).toBe(200)
      expect(ran.body.data.catalog[1]).toMatchObject({ provider: "tides", capability: "table", creditsCost: 6, records: 3 })
      expect(ran.body.data.creditsCost).toBe(6)
      expect(tideRuns).toBe(runsBefore + 1)
      expect(await balanceOf(deployment, "harbour")).toBe(14)
      // The same x-request-id again: the same answer and scrape_id, nothing run or charged again.
      const replay = await post(deployment.server, key, { catalog: [find({ providers: ["tides"] }), call] }, { "x-request-id": "tides-1" })
      expect(replay.status).toBe(200)
      expect(replay.headers.get("x-request-id")).toBe("tides-1")
      expect(replay.body.scrape_id).toBe(ran.body.scrape_id)
      expect(tideRuns).toBe(runsBefore + 1)
      expect(await balanceOf(deployment, "harbour")).toBe(14)
      const other = await post(deployment.server, key, { catalog: call }, { "x-request-id": "tides-1" })
      expect(other.status).toBe(409)
      expect(other.body).toMatchObject({ code: "duplicate_request" })
      expect(typeof other.body.chargeId).toBe("string")
      // Accepted for this team only.
      const stranger = await teamWith(deployment, "inland", {})
      expect((await post(deployment.server, stranger, { catalog: call })).status).toBe(403)
    })

    it("answers 409 request_in_flight to an x-request-id reused while its catalog request runs", async () => {
      const key = await teamWith(deployment, "eager", { credits: 5 })
      const call = { provider: "web", capability: "scrape", options: { url: `${siteUrl}/eager?ms=1500` } }
      const running = post(deployment.server, key, { catalog: call }, { "x-request-id": "eager-1" })
      await new Promise((resolve) => setTimeout(resolve, 400))
      const again = await post(deployment.server, key, { catalog: call }, { "x-request-id": "eager-1" })
      expect(again.status).toBe(409)
      expect(again.body).toMatchObject({ success: false, code: "request_in_flight" })
      expect(typeof again.body.chargeId).toBe("string")
      const first = await running
      expect(first.status).toBe(200)
      expect(first.body.data.creditsCost).toBe(1)
      expect(hitsOf("/eager")).toBe(1)
      expect(await balanceOf(deployment, "eager")).toBe(4)
    })

    it("answers 402 with nothing executed when the credits do not cover the calls", async () => {
      const key = await teamWith(deployment, "thrifty", { credits: 1 })
      const answer = await post(deployment.server, key, {
        catalog: [
          { provider: "web", capability: "scrape", options: { url: `${siteUrl}/thrifty/a` } },
          { provider: "web", capability: "scrape", options: { url: `${siteUrl}/thrifty/b` } }
        ]
      })
      expect(answer.status).toBe(402)
      expect(answer.body).toMatchObject({ success: false, code: "insufficient_credits" })
      expect(hitsOf("/thrifty/a") + hitsOf("/thrifty/b")).toBe(0)
      expect(await balanceOf(deployment, "thrifty")).toBe(1)
    })

    it("adds data.tools to a domainTools scrape: the site-bound tools matching the page", async () => {
      const key = await teamWith(deployment, "mapper", { credits: 10 })
      const matching = await post(deployment.server, key, { url: `${siteUrl}/sitemap.xml`, domainTools: true, formats: ["markdown"] })
      expect(matching.status, JSON.stringify(matching.body)).toBe(200)
      expect(matching.body.data.tools).toEqual([
        expect.objectContaining({
          id: "sitemap/urls",
          provider: "sitemap",
          capability: "urls",
          creditsCost: 1,
          perRecord: false,
          matchedBy: ["domain"],
          matchedUrls: [`${siteUrl}/sitemap.xml`],
          options: expect.arrayContaining([expect.objectContaining({ name: "url", type: "string" })]),
          response: expect.objectContaining({ key: "urls", about: expect.any(String), fields: expect.any(Array) })
        })
      ])
      // Exactly the contract's shape (DiscoveredTool, no other keys).
      Schema.decodeUnknownSync(Schema.Array(DiscoveredTool))(matching.body.data.tools, { onExcessProperty: "error" })
      // Free: the scrape costs what it costs without it.
      expect(matching.body.data.metadata.creditsUsed).toBe(1)
      const none = await post(deployment.server, key, { url: `${siteUrl}/plain`, domainTools: true })
      expect(none.body.data.tools).toEqual([])
      const without = await post(deployment.server, key, { url: `${siteUrl}/plain` })
      expect(without.body.data.tools).toBeUndefined()
      // An x-request-id reused with domainTools toggled is another request.
      const once = await post(deployment.server, key, { url: `${siteUrl}/plain`, domainTools: true }, { "x-request-id": "tools-1" })
      expect(once.status).toBe(200)
      const toggled = await post(deployment.server, key, { url: `${siteUrl}/plain` }, { "x-request-id": "tools-1" })
      expect(toggled.status).toBe(409)
      expect(toggled.body.code).toBe("duplicate_request")
      // Streamed (NDJSON): the tools come with the `done` event.
      const streamed = await fetch(`${deployment.server.url}/v2/scrape`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json", accept: "application/x-ndjson" },
        body: JSON.stringify({ url: `${siteUrl}/sitemap.xml`, domainTools: true })
      })
      const events = (await streamed.text()).trim().split("\n").map((line) => JSON.parse(line))
      expect(events.at(-1)).toMatchObject({ type: "done", data: { tools: [expect.objectContaining({ id: "sitemap/urls" })] } })
    })
  })
}
