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
        images: [{ url: "https://shop.example/k.jpg" }],
        values: { Colour: colour }
      }))
    })
    expect(found.metadata).toEqual({ productBy: "page" })
  })

  it("reads a struck-through old price as the sale's original price, screen-reader text aside", () => {
    const found = product(`<div class="product"><img src="/apron.jpg" width="600"><img src="/icon.png" width="16"><h1>Linen Apron</h1>
      <p class="price"><del aria-hidden="true"><span>$</span>80.00</del> <span class="screen-reader-text">Original price was: $80.00.</span><ins>$59.99</ins></p>
      <form class="cart" action="/product/apron/" method="post"><button type="submit" name="add-to-cart" value="57">Add to cart</button></form></div>`).fields.product
    expect(found?.variants).toEqual([{
      availability: { inStock: true },
      title: "Linen Apron",
      price: { amount: 59.99, currency: "USD", formatted: "$59.99" },
      sale: { originalPrice: { amount: 80, currency: "USD", formatted: "$ 80.00" } },
      images: [{ url: "https://shop.example/apron.jpg" }]
    }])
  })

  it("reads a sold-out product from its disabled button and stock text, and a sold-out option from its select", () => {
    const soldOut = product(`<div class="pdp"><h1>Dutch Oven</h1><span>$89.00</span><p>Out of stock</p><button type="button" disabled>Sold out</button></div>`).fields.product
    expect(soldOut?.variants.map((v) => v.availability)).toEqual([{ inStock: false, text: "Out of stock" }])
    const options = product(`<div><h1>Beanie</h1><span>£45.00</span><form action="/cart.php" method="post">
      <label for="attr_152">Colour: <small>Required</small></label><select name="attribute[152]" id="attr_152"><option value="">Choose</option>
      <option value="101">Navy</option><option value="103" disabled>Rust (Sold out)</option></select><input type="submit" value="Add to Cart"></form></div>`).fields.product
    expect(options?.variants.map((v) => [v.values, v.availability.inStock])).toEqual([[{ Colour: "Navy" }, true], [{ Colour: "Rust" }, false]])
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

  it("follows a graph's @id references (Yoast's image and brand), and takes og:image and Meta's retailer id where the data has none", () => {
    const graph = JSON.stringify({ "@context": "https://schema.org", "@graph": [
      { "@type": "ImageObject", "@id": "https://shop.example/p#primaryimage", url: "https://shop.example/board.jpg" },
      { "@type": "Organization", "@id": "https://shop.example/#org", name: "Oak & Iron" },
      { "@type": "Product", name: "Board", image: { "@id": "https://shop.example/p#primaryimage" }, brand: { "@id": "https://shop.example/#org" }, offers: { "@type": "Offer", price: "65.00", priceCurrency: "GBP" } }
    ] })
    const fromGraph = commerceFormats([{ type: "product" }], `<script type="application/ld+json">${graph}</script><h1>Board</h1>`, url).fields.product
    expect([fromGraph?.brand, fromGraph?.variants[0]?.images]).toEqual(["Oak & Iron", [{ url: "https://shop.example/board.jpg" }]])
    const microdata = commerceFormats([{ type: "product" }], `<head><meta property="og:image" content="https://shop.example/tee.jpg"></head><body itemscope itemtype="http://schema.org/Product"><h1 itemprop="name">Tee</h1></body>`, url).fields.product
    expect(microdata?.variants[0]?.images).toEqual([{ url: "https://shop.example/tee.jpg" }])
    const og = commerceFormats([{ type: "product" }], `<head><meta property="og:type" content="product"><meta property="og:title" content="Dripper"><meta property="product:retailer_item_id" content="KC-02"></head>`, url).fields.product
    expect([og?.variants[0]?.sku, og?.variants[0]?.id]).toEqual(["KC-02", "KC-02"])
  })

  it("finds prices with the sign or code before or after", () => {
    expect(findPrice("now only $1,299.99 each")).toEqual({ amount: 1299.99, currency: "USD", formatted: "$1,299.99" })
    expect(findPrice("12,50 € TTC")).toEqual({ amount: 12.5, currency: "EUR", formatted: "12,50 €" })
    expect(findPrice("CHF 49.90")).toEqual({ amount: 49.9, currency: "CHF", formatted: "CHF 49.90" })
    expect(findPrice("no price here, 2024")).toBeUndefined()
    expect(findPrice("or $83.25/mo. for 12 months, or $999")?.amount).toBe(999)
  })
})
