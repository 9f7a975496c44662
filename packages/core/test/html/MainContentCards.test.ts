/**
 * Cards of other products on a product page (`dropProductCards`), on small hand-written pages:
 * a run of short priced cards linking elsewhere goes with its heading; the product's own
 * blocks, feature tiles without prices and the same run on a page that is not a product stay.
 */
import type { Root } from "hast"
import { fromHtml } from "hast-util-from-html"
import { toText } from "hast-util-to-text"
import { describe, expect, it } from "vitest"
import { extractMainContent, readMainContentHints } from "../../src/html/MainContent.ts"
import { dropProductCards } from "../../src/html/MainContentCards.ts"

const url = "https://shop.example/item/kettle-7"

const extract = (html: string): string => {
  const tree: Root = fromHtml(html)
  return toText(extractMainContent(tree, { url, hints: readMainContentHints(tree, url) })).replace(/\s+/g, " ")
}

const productLd = `<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Copper kettle 7"}</script>`

const card = (name: string, href: string, price: string) =>
  `<li class="tile"><a href="${href}"><img src="/img/${name}.jpg" alt=""></a><h3>${name}</h3><span>${price}</span></li>`

const similar = `<section><h2>Shoppers also viewed</h2><ul>
  ${card("Steel kettle 2", "/item/steel-kettle-2", "$31.00")}
  ${card("Glass kettle 5", "/item/glass-kettle-5", "$27.50")}
  ${card("Enamel kettle 1", "https://shop.example/item/enamel-kettle-1?ref=rail", "€ 44")}
  ${card("Copper kettle 7", "/item/kettle-7", "$58.00")}
</ul></section>`

const tile = (name: string) =>
  `<div class="tile"><img src="/img/${name}.png" alt=""><h3>${name} built in</h3><p>Every kettle ships with it. <a href="/about/${name}">Learn more</a></p></div>`

const description = `<h1>Copper kettle 7</h1>
  <p>A hand-hammered copper kettle that boils a litre in four minutes on gas, induction or a wood stove, with a whistle you can switch off.</p>
  <ul><li>Capacity: 1.7 l</li><li>Weight: 1.2 kg</li><li>Base: induction-ready steel</li></ul>`

describe("cards of other products on a product page", () => {
  it("drops a run of priced cards linking to other items, its heading and the card for this item, and keeps the product", () => {
    const text = extract(`<html><head>${productLd}</head><body><main>${description}<p>$58.00</p>${similar}</main></body></html>`)
    expect(text).toContain("hand-hammered copper kettle")
    expect(text).toContain("Capacity: 1.7 l")
    expect(text).toContain("$58.00")
    expect(text).not.toContain("Steel kettle 2")
    expect(text).not.toContain("€ 44")
    expect(text).not.toContain("Shoppers also viewed")
  })

  it("keeps feature tiles that link elsewhere but state no price", () => {
    const text = extract(`<html><head>${productLd}</head><body><main>${description}
      <div class="features">${tile("Limescale filter")}${tile("Heat-proof handle")}${tile("Lid lock")}</div></main></body></html>`)
    expect(text).toContain("Limescale filter built in")
    expect(text).toContain("Lid lock built in")
  })

  it("leaves the run alone on a page that is not a product (a listing's cards are its content)", () => {
    const text = extract(`<html><body><main><h1>Kettles</h1>${similar}</main></body></html>`)
    expect(text).toContain("Steel kettle 2")
    expect(text).toContain("Glass kettle 5")
  })

  it("needs a run: two cards side by side stay", () => {
    const tree: Root = fromHtml(`<ul>${card("Steel kettle 2", "/item/steel-kettle-2", "$31.00")}${card("Glass kettle 5", "/item/glass-kettle-5", "$27.50")}</ul>`, { fragment: true })
    expect(dropProductCards(tree, url)).toBe(tree)
  })
})
