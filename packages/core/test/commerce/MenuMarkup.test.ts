/**
 * `menu` from microdata and from a page's text (headings over priced lines), and the pages whose
 * prices make no menu: a product grid, price tiers, an article.
 */
import { describe, expect, it } from "vitest"
import { commerceFormats } from "../../src/commerce/CommerceFormats.ts"

const url = "https://diner.example/menu"
const read = (body: string) => commerceFormats([{ type: "menu" }], `<html><head><title>t</title></head><body>${body}</body></html>`, url)
const menu = (body: string) => read(body).fields.menu

describe("menu from microdata", () => {
  it("reads sections and items with prices and descriptions", () => {
    const item = (name: string, price: string) =>
      `<div itemprop="hasMenuItem" itemscope itemtype="https://schema.org/MenuItem"><h3 itemprop="name">${name}</h3><p itemprop="description">Fresh</p><div itemprop="offers" itemscope itemtype="https://schema.org/Offer"><meta itemprop="priceCurrency" content="USD"><span itemprop="price">${price}</span></div></div>`
    const result = read(`<div itemscope itemtype="https://schema.org/Menu"><section itemprop="hasMenuSection" itemscope itemtype="https://schema.org/MenuSection"><h2 itemprop="name">Breakfast</h2>${item("Pancakes", "11.95")}${item("Omelette", "13.50")}</section></div>`)
    expect(result.metadata).toEqual({ menuBy: "schema.org" })
    const found = result.fields.menu
    expect(found?.sections).toEqual([{
      name: "Breakfast",
      items: [
        { name: "Pancakes", description: "Fresh", price: { amount: 11.95, currency: "USD" } },
        { name: "Omelette", description: "Fresh", price: { amount: 13.5, currency: "USD" } }
      ]
    }])
    expect(found?.currency).toBe("USD")
  })
})

describe("menu from the page's text", () => {
  it("reads headings over name-and-price lines, a price on its own line, and descriptions", () => {
    const result = read(`<h1>Menu</h1><h2>Fish</h2><p>Cod &amp; Chips ........ 9.80<br>Haddock &amp; Chips ........ 10.40</p>
      <h2>Mains</h2><div class="item"><h4>Lamb Curry</h4><span>£14.50</span><p>Slow cooked, with rice</p></div><div class="item"><h4>Dal</h4><span>£9.00</span></div>`)
    expect(result.metadata).toEqual({ menuBy: "page" })
    const found = result.fields.menu
    expect(found?.sections).toEqual([
      { name: "Fish", items: [{ name: "Cod & Chips", price: { amount: 9.8 } }, { name: "Haddock & Chips", price: { amount: 10.4 } }] },
      { name: "Mains", items: [{ name: "Lamb Curry", price: { amount: 14.5, currency: "GBP" }, description: "Slow cooked, with rice" }, { name: "Dal", price: { amount: 9, currency: "GBP" } }] }
    ])
    expect(found?.confidence).toBeLessThan(0.9)
  })

  it("gives no menu for a product grid, price tiers, or an article that mentions prices", () => {
    const card = (n: number) => `<div class="card"><a href="/p/${n}"><img src="/i/${n}.jpg"></a><h3><a href="/p/${n}">Bookcase ${n}</a></h3><p>$${n}9.00</p></div>`
    const grid = read(`<h1>Bookcases</h1>${[1, 2, 3, 4, 5].map(card).join("")}`)
    expect(grid.fields.menu).toBeNull()
    expect(grid.metadata).toEqual({})
    const tier = (who: string, price: string) => `<p>${who} ${price}</p>`
    expect(menu(`<h2>Training</h2>${tier("Member", "$130")}${tier("Student", "$80")}${tier("Member", "$130")}${tier("Student", "$80")}${tier("Member", "$130")}`)).toBeNull()
    expect(menu(`<article><h1>Coffee prices</h1><p>A flat white now costs £3.60, up from £3.20.</p><p>Latte</p><p>£3.40</p></article>`)).toBeNull()
  })
})
