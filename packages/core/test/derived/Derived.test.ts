/**
 * The offline derived formats on their own: sentences, the extractive summary, answer spans and
 * highlights, the page's facts (JSON-LD, microdata, RDFa, meta, tables, definition lists) filling a
 * schema, the JSON Schema check, and the model settings read from the environment.
 */
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Option } from "effect"
import fc from "fast-check"
import { answerSpan, questionType } from "../../src/derived/AnswerSpan.ts"
import { deriveOffline, parseModelJson } from "../../src/derived/DerivedFormats.ts"
import { extractiveAnswer, extractiveHighlights, extractiveSummary } from "../../src/derived/Extractive.ts"
import { fillSchema } from "../../src/derived/JsonFill.ts"
import { checkSchema } from "../../src/derived/JsonSchemaCheck.ts"
import { pageFacts } from "../../src/derived/PageFacts.ts"
import { pageSentences, splitSentences } from "../../src/derived/Sentences.ts"
import { OpenAiCompatible } from "../../src/index.ts"

const PAGE = `# Copper Valley Railway

The Copper Valley Railway opened on 14 June 1902 to carry ore from the mines to the port at Arlen. Dr. Hilda Marsh, the line's chief engineer, drove the last spike herself.

The line is 86 kilometres long and climbs through eleven tunnels. Steam trains ran on it until 1961, when diesel engines replaced them.

## Today

Heritage trains now run every Sunday from May to September. A return ticket costs $24 for adults.

- Trains leave Arlen at 10:00.
- The journey takes two hours each way.

| Station | Opened |
| --- | --- |
| Arlen | 1902 |
| Copper Gap | 1904 |
`

describe("sentences", () => {
  it("splits at sentence ends but not after abbreviations or initials", () => {
    assert.deepStrictEqual(splitSentences("Dr. Marsh came at 9. She left. J. R. Smith stayed!"), ["Dr. Marsh came at 9.", "She left.", "J. R. Smith stayed!"])
  })

  it("reads headings, list items and table rows as their own sentences, without markdown syntax", () => {
    const sentences = pageSentences("# Title\n\nSee [the map](https://e.com/m) **now**. Then go.\n\n- one item here\n\n```\ncode is not prose.\n```\n\n| a | b |\n| --- | --- |\n| 1 | 2 |")
    assert.deepStrictEqual(sentences.map((s) => s.text), ["Title", "See the map now.", "Then go.", "one item here", "a | b", "1 | 2"])
    assert.isTrue(sentences[0]!.isHeading)
    assert.isTrue(sentences[5]!.isTableRow)
  })
})

describe("extractive summary", () => {
  it("takes central sentences in page order, within the word budget", () => {
    const summary = extractiveSummary(PAGE)!
    assert.include(summary, "The Copper Valley Railway opened on 14 June 1902")
    assert.isAtMost(summary.split(" ").length, 150)
    const order = pageSentences(PAGE).filter((s) => !s.isHeading).map((s) => s.text)
    const picked = order.filter((s) => summary.includes(s))
    assert.isAbove(picked.length, 1)
    assert.strictEqual(summary, picked.join(" "))
  })

  it("is undefined for a page without prose", () => {
    assert.isUndefined(extractiveSummary("```\nconst x = 1\n```"))
  })
})

describe("extractive answer", () => {
  const cases: Array<[string, string]> = [
    ["When did the Copper Valley Railway open?", "14 June 1902"],
    ["How long is the line?", "86 kilometres"],
    ["Who drove the last spike?", "Hilda Marsh"],
    ["How much does a return ticket cost?", "$24"],
    ["In what year did steam trains stop running?", "1961"],
    ["How many tunnels does the line climb through?", "eleven tunnels"],
    ["When did Copper Gap station open?", "1904"]
  ]
  for (const [question, expected] of cases) {
    it(`${question} -> ${expected}`, () => {
      assert.strictEqual(extractiveAnswer(PAGE, question)?.answer, expected)
    })
  }

  it("gives nothing when the page does not talk about the question", () => {
    assert.isUndefined(extractiveAnswer(PAGE, "What is the boiling point of mercury?"))
  })

  it("types questions and finds spans of that type", () => {
    assert.strictEqual(questionType("What percentage of voters turned out?"), "percent")
    assert.strictEqual(answerSpan("What percentage of voters turned out?", "Turnout reached 67.5% in the city."), "67.5%")
    assert.strictEqual(answerSpan("Where was she born?", "Marsh was born in Port Arlen in 1870."), "Port Arlen")
  })
})

describe("extractive highlights", () => {
  it("quotes the page's sentences verbatim for the query", () => {
    assert.strictEqual(extractiveHighlights(PAGE, "ticket price for adults"), "A return ticket costs $24 for adults.")
  })

  it("every highlight is a sentence of the page, whatever the query", () => {
    const sentences = new Set(pageSentences(PAGE).map((s) => s.text))
    fc.assert(fc.property(fc.array(fc.constantFrom("train", "ticket", "tunnel", "steam", "Arlen", "zebra", "opened", "the"), { minLength: 1, maxLength: 4 }), (words) => {
      const highlights = extractiveHighlights(PAGE, words.join(" "))
      if (highlights === undefined) return true
      return highlights.split("\n\n").every((h) => sentences.has(h))
    }))
  })
})

const PRODUCT = `<html><head><title>Trail Boot | Shop</title>
<meta property="og:title" content="Trail Boot"><meta property="og:image" content="https://e.com/boot.jpg">
<script type="application/ld+json">{"@context":"https://schema.org","@graph":[{"@type":"Product","name":"Trail Boot","sku":"TB-9","brand":{"@type":"Brand","name":"Northwind"},"offers":{"@type":"Offer","price":"129.00","priceCurrency":"EUR","availability":"https://schema.org/InStock"}}]}</script>
<script type="application/ld+json">{ broken</script></head>
<body><div itemscope itemtype="https://schema.org/Product"><span itemprop="color">Moss green</span><meta itemprop="material" content="Leather"></div>
<p vocab="https://schema.org/" typeof="Person"><span property="jobTitle">Cobbler</span></p>
<table><tr><th>Weight</th><td>1.1 kg</td></tr><tr><th>Waterproof</th><td>Yes</td></tr></table>
<dl><dt>Warranty:</dt><dd>2 years</dd></dl>
<table><tr><th>Size</th><th>Stock</th></tr><tr><td>42</td><td>3</td></tr><tr><td>43</td><td>0</td></tr></table>
</body></html>`

describe("offline json", () => {
  it("fills a schema from JSON-LD, microdata, RDFa, meta, tables and definition lists", () => {
    const filled = fillSchema({
      type: "object",
      properties: {
        name: { type: "string" },
        price: { type: "number" },
        currency: { type: "string" },
        brand: { type: "string" },
        inStock: { type: "boolean" },
        colour: { type: "string" },
        material: { type: "string" },
        jobTitle: { type: "string" },
        image: { type: "string" },
        weight: { type: "string" },
        waterproof: { type: "boolean" },
        warranty: { type: "string" },
        sizes: { type: "array", items: { type: "object", properties: { size: { type: "integer" }, stock: { type: "integer" } } } },
        rating: { type: "number" }
      },
      required: ["name"]
    }, pageFacts(PRODUCT))
    assert.deepStrictEqual(filled.value, {
      name: "Trail Boot",
      price: 129,
      currency: "EUR",
      brand: "Northwind",
      inStock: true,
      colour: "Moss green",
      material: "Leather",
      jobTitle: "Cobbler",
      image: "https://e.com/boot.jpg",
      weight: "1.1 kg",
      waterproof: true,
      warranty: "2 years",
      sizes: [{ size: 42, stock: 3 }, { size: 43, stock: 0 }]
    })
    assert.deepStrictEqual(filled.empty, ["rating"])
    assert.deepStrictEqual(filled.invalid, [])
  })

  it("takes a bare properties map as an object schema, and names empty keys in warning", () => {
    const derived = deriveOffline([{ type: "json", schema: { title: { type: "string" }, isbn: { type: "string" } } }], { markdown: "Hello.", html: PRODUCT })
    assert.deepStrictEqual(derived.fields.json, { title: "Trail Boot" })
    assert.deepStrictEqual(derived.warnings, ["json: no value found on the page for isbn"])
    assert.deepStrictEqual(derived.metadata, { jsonBy: "structured-data" })
  })

  it("reads a JSON body's own keys (a scraped API answer)", () => {
    const body = { data: { id: 7, full_name: "Ada Lovelace", born: "1815-12-10", tags: ["math", "poetry"] } }
    const derived = deriveOffline([{ type: "json", schema: { type: "object", properties: { fullName: { type: "string" }, born: { type: "string" }, tags: { type: "array", items: { type: "string" } } } } }], {
      markdown: "```json\n" + JSON.stringify(body, null, 2) + "\n```"
    })
    assert.deepStrictEqual(derived.fields.json, { fullName: "Ada Lovelace", born: "1815-12-10", tags: ["math", "poetry"] })
  })

  it("reads Key: value lines when there is no HTML (a document)", () => {
    const derived = deriveOffline([{ type: "json", schema: { type: "object", properties: { invoiceNumber: { type: "string" }, total: { type: "number" } } } }], {
      markdown: "Invoice number: INV-0042\n\nTotal: 1,250.50 EUR"
    })
    assert.deepStrictEqual(derived.fields.json, { invoiceNumber: "INV-0042", total: 1250.5 })
  })
})

describe("JSON Schema check", () => {
  it("names the paths that break the schema", () => {
    const schema = {
      type: "object",
      properties: { a: { type: "integer", minimum: 1 }, b: { type: "array", items: { $ref: "#/$defs/s" } }, c: { enum: ["x", "y"] }, d: { type: "null" } },
      required: ["a", "d"],
      additionalProperties: false,
      $defs: { s: { type: "string", pattern: "^[a-z]+$" } }
    }
    assert.sameMembers(checkSchema({ a: 0, b: ["ok", "No"], c: "z", e: 1 }, schema), [
      "$.a: must be at least 1",
      "$.d: required",
      "$.b[1]: does not match ^[a-z]+$",
      "$.c: must be one of \"x\", \"y\"",
      "$.e: not allowed"
    ])
    assert.deepStrictEqual(checkSchema({ a: 2, b: [], c: "x", d: null }, schema), [])
  })

  it("reads model JSON in fences or with text around it, and refuses what is not JSON", () => {
    assert.deepStrictEqual(parseModelJson("```json\n{\"a\":1}\n```"), { ok: true, value: { a: 1 } })
    assert.deepStrictEqual(parseModelJson("Here: {\"a\":[1,2]} done"), { ok: true, value: { a: [1, 2] } })
    assert.deepStrictEqual(parseModelJson("{a: 1"), { ok: false })
  })
})

describe("model settings", () => {
  const read = (env: Record<string, string>) =>
    OpenAiCompatible.optionsFromConfig.pipe(Effect.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env }))))

  it.effect("none without STRATA_LLM_BASE_URL", () =>
    Effect.gen(function*() {
      assert.isTrue(Option.isNone(yield* read({ STRATA_LLM_MODEL: "m" })))
    }))

  it.effect("the endpoint, key, model and limits from STRATA_LLM_*", () =>
    Effect.gen(function*() {
      const options = Option.getOrThrow(yield* read({
        STRATA_LLM_BASE_URL: "http://127.0.0.1:8000/v1",
        STRATA_LLM_API_KEY: "sk-x",
        STRATA_LLM_MODEL: "qwen2.5-7b",
        STRATA_LLM_TIMEOUT_MS: "1234",
        STRATA_LLM_MAX_INPUT_TOKENS: "8000"
      }))
      assert.strictEqual(options.baseUrl, "http://127.0.0.1:8000/v1")
      assert.strictEqual(options.model, "qwen2.5-7b")
      assert.strictEqual(options.timeoutMs, 1234)
      assert.strictEqual(options.maxInputTokens, 8000)
      assert.strictEqual(options.maxRetries, 3)
      assert.isDefined(options.apiKey)
    }))
})

describe("hostile schemas and pages", () => {
  it("any JSON as a schema, against any page facts, neither throws nor hangs", () => {
    const facts = pageFacts(PRODUCT)
    fc.assert(fc.property(fc.jsonValue({ maxDepth: 5 }), (schema) => {
      const record = schema !== null && typeof schema === "object" && !Array.isArray(schema) ? (schema as Record<string, unknown>) : { type: schema }
      const filled = fillSchema(record, facts)
      checkSchema(filled.value, record)
      return true
    }), { numRuns: 300 })
  })

  it("a type list holding objects that cannot become text is reported, not thrown", () => {
    // fast-check's counterexample (seed 1493645532): [{ toString: null }] as a type list.
    const schema = { type: [{ toString: null }] }
    const filled = fillSchema(schema, pageFacts(PRODUCT))
    assert.deepStrictEqual(checkSchema("x", schema), ['$: expected {"toString":null}, got string'])
    assert.ok(Array.isArray(filled.invalid))
  })

  it("a schema that refers to itself ends", () => {
    const schema = { $ref: "#/$defs/node", $defs: { node: { type: "object", properties: { name: { type: "string" }, child: { $ref: "#/$defs/node" } } } } }
    const filled = fillSchema(schema, pageFacts(PRODUCT))
    assert.strictEqual((filled.value as { name?: string }).name, "Trail Boot")
  })

  it("any text as a page gives sentences, a summary and answers without throwing", () => {
    fc.assert(fc.property(fc.string({ maxLength: 400 }), fc.string({ maxLength: 60 }), (page, question) => {
      deriveOffline([{ type: "summary" }, { type: "question", question: question || "x" }, { type: "highlights", query: question || "x" }], { markdown: page, html: page })
      return true
    }), { numRuns: 300 })
  })

  it("the deprecated query format: freeform is answered, directQuote highlighted", () => {
    const derived = deriveOffline([{ type: "query", prompt: "When did the Copper Valley Railway open?", mode: "freeform" }], { markdown: PAGE })
    assert.strictEqual(derived.fields.answer, "14 June 1902")
    const quoted = deriveOffline([{ type: "query", prompt: "return ticket for adults", mode: "directQuote" }], { markdown: PAGE })
    assert.strictEqual(quoted.fields.highlights, "A return ticket costs $24 for adults.")
  })
})
