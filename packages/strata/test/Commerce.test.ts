/**
 * `product` and `menu` end to end through the library, from a page served on loopback.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { dispose, scrape } from "../src/index.ts"

let server: Server
let base = ""
const ld = { "@context": "https://schema.org", "@type": "Product", name: "Field Jacket", brand: "Ridge", offers: { "@type": "Offer", price: "120.00", priceCurrency: "EUR", availability: "https://schema.org/InStock" } }

beforeAll(async () => {
  process.env.STRATA_ALLOW_PRIVATE_URLS = "1"
  server = createServer((_req, res) => {
    res.setHeader("content-type", "text/html; charset=utf-8")
    res.end(`<html><head><title>Field Jacket</title><script type="application/ld+json">${JSON.stringify(ld)}</script></head><body><main><h1>Field Jacket</h1><p>${"A waxed cotton jacket with four pockets. ".repeat(6)}</p></main></body></html>`)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterAll(async () => {
  await dispose()
  server.closeAllConnections()
  server.close()
})

describe("product and menu", () => {
  it("reads the product a page states, and says the page has no menu", async () => {
    const data = await scrape(`${base}/jacket`, { formats: ["product", "menu"] })
    expect(data.product).toEqual({
      title: "Field Jacket",
      url: `${base}/jacket`,
      brand: "Ridge",
      variants: [{ availability: { inStock: true, text: "InStock" }, title: "Field Jacket", price: { amount: 120, currency: "EUR", formatted: "120.00" } }]
    })
    expect(data.menu).toBeNull()
    expect(data.warning).toContain("menu: the page shows no menu")
    expect(data.markdown).toBeUndefined()
  })
})
