/**
 * `product` and `menu` from a page's structured data, on pages written the way shops and
 * restaurants write them: a ProductGroup with variants, one product with a list price and an
 * AggregateOffer, OpenGraph tags only, a restaurant's nested menu, and pages that state neither.
 */
import { describe, expect, it } from "vitest"
import { commerceFormats } from "../../src/commerce/CommerceFormats.ts"
import { amount } from "../../src/commerce/SchemaOrg.ts"

const page = (jsonLd: unknown, head = "") =>
  `<html><head>${head}<script type="application/ld+json">${JSON.stringify(jsonLd)}</script></head><body><h1>x</h1></body></html>`
const url = "https://shop.example/p/trail-shoe"
const product = (html: string) => commerceFormats([{ type: "product" }], html, url)
const menu = (html: string) => commerceFormats([{ type: "menu" }], html, url)

describe("product", () => {
  it("reads a ProductGroup's variants with their option values, stock and prices", () => {
    const html = page({
      "@context": "https://schema.org",
      "@type": "ProductGroup",
      name: "Trail Shoe",
      brand: { "@type": "Brand", name: "Ridge" },
      description: "A light shoe for rough paths.",
      image: "/img/shoe.jpg",
      variesBy: ["https://schema.org/size", "https://schema.org/color"],
      hasVariant: [
        { "@type": "Product", name: "Trail Shoe 42 red", sku: "TS-42-R", size: "42", color: "red", offers: { "@type": "Offer", price: "89.00", priceCurrency: "EUR", availability: "https://schema.org/InStock" } },
        { "@type": "Product", name: "Trail Shoe 43 red", sku: "TS-43-R", size: "43", color: "red", offers: { "@type": "Offer", price: 89, priceCurrency: "EUR", availability: "https://schema.org/OutOfStock" } }
      ]
    })
    const { fields, warnings } = product(html)
    expect(warnings).toEqual([])
    expect(fields.product).toEqual({
      title: "Trail Shoe",
      url,
      brand: "Ridge",
      description: "A light shoe for rough paths.",
      variants: [
        { availability: { inStock: true, text: "InStock" }, id: "TS-42-R", sku: "TS-42-R", title: "Trail Shoe 42 red", price: { amount: 89, currency: "EUR", formatted: "89.00" }, images: [{ url: "https://shop.example/img/shoe.jpg" }], values: { size: "42", color: "red" } },
        { availability: { inStock: false, text: "OutOfStock" }, id: "TS-43-R", sku: "TS-43-R", title: "Trail Shoe 43 red", price: { amount: 89, currency: "EUR" }, images: [{ url: "https://shop.example/img/shoe.jpg" }], values: { size: "43", color: "red" } }
      ]
    })
  })

  it("gives a sale when the list price is higher, and reads offers inside an AggregateOffer", () => {
    const sale = product(page({
      "@type": "Product",
      name: "Kettle",
      offers: { "@type": "Offer", price: "39.99", priceCurrency: "USD", availability: "InStock", priceSpecification: [{ "@type": "UnitPriceSpecification", priceType: "https://schema.org/ListPrice", price: 59.99, priceCurrency: "USD" }] }
    })).fields.product
    expect(sale?.variants[0]).toMatchObject({ price: { amount: 39.99, currency: "USD" }, sale: { originalPrice: { amount: 59.99, currency: "USD" } } })
    const aggregate = product(page({ "@graph": [{ "@type": "WebPage" }, { "@type": "Product", name: "Lamp", offers: { "@type": "AggregateOffer", lowPrice: 10, priceCurrency: "GBP", offers: [{ "@type": "Offer", name: "Small", price: 10, priceCurrency: "GBP" }, { "@type": "Offer", name: "Large", price: 15, priceCurrency: "GBP" }] } }] })).fields.product
    expect(aggregate?.variants.map((v) => [v.title, v.price?.amount])).toEqual([["Small", 10], ["Large", 15]])
  })

  it("falls back to OpenGraph product tags, and says when there is no product", () => {
    const og = product(`<html><head><meta property="og:type" content="product"><meta property="og:title" content="Desk Lamp"><meta property="product:price:amount" content="1.299,00"><meta property="product:price:currency" content="EUR"><meta property="og:image" content="https://shop.example/lamp.jpg"></head><body></body></html>`).fields.product
    expect(og).toEqual({ title: "Desk Lamp", url, variants: [{ availability: { inStock: true }, price: { amount: 1299, currency: "EUR", formatted: "1.299,00" }, images: [{ url: "https://shop.example/lamp.jpg" }] }] })
    const none = product(page({ "@type": "Article", headline: "News" }))
    expect(none.fields.product).toBeNull()
    expect(none.warnings[0]).toContain("no product")
  })

  it("reads prices as pages write them", () => {
    expect([amount("$1,299.50"), amount("12,50 €"), amount("1 299"), amount(7), amount("free")]).toEqual([1299.5, 12.5, 1299, 7, undefined])
  })
})

describe("menu", () => {
  it("reads a restaurant's menu with nested sections", () => {
    const html = page({
      "@type": "Restaurant",
      name: "Harbour Kitchen",
      hasMenu: {
        "@type": "Menu",
        name: "Dinner",
        hasMenuSection: [
          { "@type": "MenuSection", name: "Starters", hasMenuItem: [{ "@type": "MenuItem", name: "Soup of the day", description: "With bread", offers: { "@type": "Offer", price: "6.50", priceCurrency: "GBP" }, suitableForDiet: "https://schema.org/VegetarianDiet" }] },
          { "@type": "MenuSection", name: "Mains", hasMenuSection: [{ "@type": "MenuSection", name: "Fish", hasMenuItem: [{ "@type": "MenuItem", name: "Hake", offers: { price: 18, priceCurrency: "GBP" }, nutrition: { "@type": "NutritionInformation", calories: "540 calories" } }] }] }
        ]
      }
    })
    const { fields, warnings } = menu(html)
    expect(warnings).toEqual([])
    expect(fields.menu).toEqual({
      isMenu: true,
      confidence: 0.9,
      currency: "GBP",
      merchant: { name: "Harbour Kitchen", type: "Restaurant" },
      sourceUrl: url,
      sections: [
        { name: "Starters", items: [{ name: "Soup of the day", description: "With bread", price: { amount: 6.5, currency: "GBP" }, dietary: ["Vegetarian"] }] },
        { name: "Mains / Fish", items: [{ name: "Hake", price: { amount: 18, currency: "GBP" }, calories: 540 }] }
      ]
    })
  })

  it("is null with a warning on a page without a menu, and on a document", () => {
    expect(menu(page({ "@type": "Product", name: "Lamp" })).fields.menu).toBeNull()
    const document = commerceFormats([{ type: "menu" }, { type: "product" }], undefined, undefined)
    expect(document.fields).toEqual({ product: null, menu: null })
    expect(document.warnings).toHaveLength(2)
  })
})
