/**
 * `product` from schema.org items written in markup (microdata, RDFa) and from the page's own
 * evidence when it states none: a heading with a price near it and a way to buy. Pages written the
 * way shop templates write them; listings and articles with a price stay no product.
 */
import { describe, expect, it } from "vitest"
import { commerceFormats } from "../../src/commerce/CommerceFormats.ts"
import { findPrice } from "../../src/commerce/ProductEvidence.ts"

const url = "https://shop.example/p/kettle"
const product = (body: string) => commerceFormats([{ type: "product" }], `<html><head><title>t</title></head><body>${body}</body></html>`, url)

describe("product from microdata and RDFa", () => {
  it("reads a microdata Product with its offer, brand, sku and image", () => {
    const found = product(`<div itemscope itemtype="https://schema.org/Product">
      <h1 itemprop="name">Stove Kettle</h1>
      <img itemprop="image" src="/img/kettle.jpg" alt="">
      <span itemprop="brand" itemscope itemtype="https://schema.org/Brand"><span itemprop="name">Hearth</span></span>
      <meta itemprop="sku" content="HK-2">
      <div itemprop="offers" itemscope itemtype="https://schema.org/Offer">
        <span itemprop="priceCurrency" content="GBP">£</span><span itemprop="price" content="34.50">34.50</span>
        <link itemprop="availability" href="https://schema.org/InStock">In stock
      </div>
    </div>`)
    expect(found.fields.product).toEqual({
      title: "Stove Kettle",
      url,
      brand: "Hearth",
      variants: [{
        availability: { inStock: true, text: "InStock" },
        id: "HK-2",
        sku: "HK-2",
        title: "Stove Kettle",
        price: { amount: 34.5, currency: "GBP", formatted: "34.50" },
        images: [{ url: "https://shop.example/img/kettle.jpg" }]
      }]
    })
    expect(found.metadata).toEqual({ productBy: "schema.org" })
  })

  it("reads an RDFa Product (vocab and prefixed properties)", () => {
    const found = product(`<div vocab="https://schema.org/" typeof="Product">
      <h1 property="name">Stove Kettle</h1>
      <div property="offers" typeof="Offer"><span property="schema:price" content="34.50">£34.50</span><meta property="priceCurrency" content="GBP">
      <link property="availability" href="https://schema.org/OutOfStock"></div>
    </div>`).fields.product
    expect(found?.title).toBe("Stove Kettle")
    expect(found?.variants).toEqual([{ availability: { inStock: false, text: "OutOfStock" }, title: "Stove Kettle", price: { amount: 34.5, currency: "GBP", formatted: "34.50" } }])
  })
})

describe("product from the page's own evidence", () => {
  it("reads the heading, the price near it and the variant select of a cart form", () => {
    const found = product(`<nav><a href="/">Home</a></nav><main><div class="product">
      <div class="gallery"><img src="/k.jpg"></div>
      <div class="info"><h1>Stove Kettle</h1><p class="price">€ 1.299,00</p>
      <form action="/cart/add" method="post"><select name="options[Colour]"><option value="">Choose</option><option value="1">Red</option><option value="2">Green</option></select>
      <select name="quantity"><option>1</option><option>2</option></select><button type="submit">Add to bag</button></form></div>
    </div></main>`)
    expect(found.fields.product).toEqual({
      title: "Stove Kettle",
      url,
      variants: ["Red", "Green"].map((colour) => ({
        availability: { inStock: true },
        title: "Stove Kettle",
        price: { amount: 1299, currency: "EUR", formatted: "€ 1.299,00" },
        values: { Colour: colour }
      }))
    })
    expect(found.metadata).toEqual({ productBy: "page" })
  })

  it("is no product without a way to buy, on a listing with many buy buttons, or without a price", () => {
    expect(product(`<article><h1>Kettles are getting dearer</h1><p>A good one now costs $45, up from $30.</p></article>`).fields.product).toBeNull()
    const card = (n: number) => `<li><h2>Kettle ${n}</h2><span>$${n}0.00</span><button class="add-to-cart">Add to cart</button></li>`
    expect(product(`<h1>Kettles</h1><p>From $10.00</p><ul>${[1, 2, 3, 4].map(card).join("")}</ul>`).fields.product).toBeNull()
    expect(product(`<h1>Stove Kettle</h1><button class="add-to-cart">Add to cart</button>`).fields.product).toBeNull()
  })

  it("prices a Product stated without an offer from its heading, and decodes entities in JSON-LD text", () => {
    const jsonLd = JSON.stringify({ "@context": "https://schema.org", "@type": "Product", name: "The Cream with TFC8&reg;" })
    const found = commerceFormats([{ type: "product" }], `<html><head><script type="application/ld+json">${jsonLd}</script></head><body><div><h1>The Cream</h1><p>Scarlett 4i4 $299.99</p></div></body></html>`, url).fields.product
    expect(found?.title).toBe("The Cream with TFC8®")
    expect(found?.variants[0]?.price).toEqual({ amount: 299.99, currency: "USD", formatted: "$299.99" })
  })

  it("finds prices with the sign or code before or after", () => {
    expect(findPrice("now only $1,299.99 each")).toEqual({ amount: 1299.99, currency: "USD", formatted: "$1,299.99" })
    expect(findPrice("12,50 € TTC")).toEqual({ amount: 12.5, currency: "EUR", formatted: "12,50 €" })
    expect(findPrice("CHF 49.90")).toEqual({ amount: 49.9, currency: "CHF", formatted: "CHF 49.90" })
    expect(findPrice("no price here, 2024")).toBeUndefined()
    expect(findPrice("or $83.25/mo. for 12 months, or $999")?.amount).toBe(999)
  })
})
