/** The tagged unions of a scrape request: every action variant, every format form, parsers. */
import { describe, expect, it } from "vitest"
import { getFormat, hasFormat, pdfParser } from "../../src/contract/index.ts"
import { ok, rejectsAt, scrape, withUrl } from "./decode.ts"

const actions = (list: Array<unknown>) => scrape(withUrl({ actions: list }))

describe("actions", () => {
  it("decodes every variant with its defaults", () => {
    const r = ok(actions([
      { type: "wait", milliseconds: 1 },
      { type: "wait", selector: "#main" },
      { type: "screenshot" },
      { type: "screenshot", fullPage: true, quality: 100, viewport: { width: 1280, height: 800 } },
      { type: "click", selector: "button" },
      { type: "click", selector: "a", all: true },
      { type: "write", text: "hello" },
      { type: "press", key: "Enter" },
      { type: "scroll" },
      { type: "scroll", direction: "up", selector: ".feed" },
      { type: "scrape" },
      { type: "executeJavascript", script: "return 1" },
      { type: "pdf" },
      { type: "pdf", format: "A4", landscape: true, scale: 0.5 }
    ]))
    expect(r.actions).toEqual([
      { type: "wait", milliseconds: 1 },
      { type: "wait", selector: "#main" },
      { type: "screenshot", fullPage: false },
      { type: "screenshot", fullPage: true, quality: 100, viewport: { width: 1280, height: 800 } },
      { type: "click", selector: "button", all: false },
      { type: "click", selector: "a", all: true },
      { type: "write", text: "hello" },
      { type: "press", key: "Enter" },
      { type: "scroll", direction: "down" },
      { type: "scroll", direction: "up", selector: ".feed" },
      { type: "scrape" },
      { type: "executeJavascript", script: "return 1" },
      { type: "pdf", format: "Letter", landscape: false, scale: 1 },
      { type: "pdf", format: "A4", landscape: true, scale: 0.5 }
    ])
  })

  it("absent actions stay absent (no data.actions)", () => {
    expect(ok(scrape(withUrl({}))).actions).toBeUndefined()
    expect(ok(actions([])).actions).toEqual([])
  })

  it("wait takes exactly one of milliseconds (>= 1) or selector", () => {
    rejectsAt(actions([{ type: "wait" }]), "actions.0", /exactly one/)
    rejectsAt(actions([{ type: "wait", milliseconds: 5, selector: "a" }]), "actions.0", /exactly one/)
    rejectsAt(actions([{ type: "wait", milliseconds: 0 }]), "actions.0.milliseconds")
    rejectsAt(actions([{ type: "wait", milliseconds: 1.5 }]), "actions.0.milliseconds")
    rejectsAt(actions([{ type: "wait", milliseconds: 5, extra: 1 }]), "actions.0.extra", /Unknown key/)
  })

  it("screenshot quality is 1..100 and viewport needs width and height", () => {
    ok(actions([{ type: "screenshot", quality: 1 }]))
    rejectsAt(actions([{ type: "screenshot", quality: 0 }]), "actions.0.quality")
    rejectsAt(actions([{ type: "screenshot", quality: 101 }]), "actions.0.quality")
    rejectsAt(actions([{ type: "screenshot", viewport: { width: 100 } }]), "actions.0.viewport.height", /Missing/)
  })

  it("required fields of click, write, press, executeJavascript", () => {
    rejectsAt(actions([{ type: "click" }]), "actions.0.selector", /Missing/)
    rejectsAt(actions([{ type: "write" }]), "actions.0.text", /Missing/)
    rejectsAt(actions([{ type: "press" }]), "actions.0.key", /Missing/)
    rejectsAt(actions([{ type: "executeJavascript" }]), "actions.0.script", /Missing/)
  })

  it("scroll direction and pdf format are enums; scrape takes no keys", () => {
    rejectsAt(actions([{ type: "scroll", direction: "left" }]), "actions.0.direction")
    rejectsAt(actions([{ type: "pdf", format: "B5" }]), "actions.0.format")
    rejectsAt(actions([{ type: "pdf", scale: 0 }]), "actions.0.scale")
    rejectsAt(actions([{ type: "scrape", url: "x" }]), "actions.0.url", /Unknown key/)
  })

  it("an unknown action type names the valid ones", () => {
    rejectsAt(actions([{ type: "hover", selector: "a" }]), "actions.0", /type` is one of wait, screenshot, click/)
    rejectsAt(actions(["click"]), "actions.0", /action object/)
    rejectsAt(scrape(withUrl({ actions: { type: "click" } })), "actions")
  })
})

const formats = (list: Array<unknown>) => scrape(withUrl({ formats: list }))

describe("formats", () => {
  it("normalises strings and objects to Format objects with defaults", () => {
    const r = ok(formats([
      "markdown",
      { type: "html" },
      "rawHtml",
      "links",
      "images",
      "screenshot",
      "summary",
      "branding",
      "product",
      "menu",
      "audio",
      "video",
      "rawBase64",
      "changeTracking",
      { type: "json", schema: { type: "object", properties: { a: { type: "string" } } } },
      { type: "json", prompt: "extract the price" },
      { type: "question", question: "Who wrote it?" },
      { type: "highlights", query: "pricing" },
      { type: "query", prompt: "what?" },
      { type: "attributes", selectors: [{ selector: "a", attribute: "href" }] }
    ]))
    expect(r.formats.map((f) => f.type)).toEqual([
      "markdown", "html", "rawHtml", "links", "images", "screenshot", "summary", "branding", "product", "menu", "audio",
      "video", "rawBase64", "changeTracking", "json", "json", "question", "highlights", "query", "attributes"
    ])
    expect(getFormat(r, "screenshot")).toEqual({ type: "screenshot", fullPage: false })
    expect(getFormat(r, "changeTracking")).toEqual({ type: "changeTracking", modes: [] })
    expect(getFormat(r, "query")).toEqual({ type: "query", prompt: "what?", mode: "freeform" })
    expect(getFormat(r, "question")?.question).toBe("Who wrote it?")
    expect(hasFormat(r, "json")).toBe(true)
  })

  it("screenshot and changeTracking object forms", () => {
    const r = ok(formats([
      { type: "screenshot", fullPage: true, quality: 80, viewport: { width: 800, height: 600 } },
      "markdown",
      { type: "changeTracking", modes: ["git-diff", "json"], schema: { type: "object" }, prompt: "p", tag: "prod" }
    ]))
    expect(r.formats).toEqual([
      { type: "screenshot", fullPage: true, quality: 80, viewport: { width: 800, height: 600 } },
      { type: "markdown" },
      { type: "changeTracking", modes: ["git-diff", "json"], schema: { type: "object" }, prompt: "p", tag: "prod" }
    ])
    rejectsAt(formats([{ type: "screenshot", quality: 101 }]), "formats.0.quality")
    rejectsAt(formats(["markdown", { type: "changeTracking", modes: ["html"] }]), "formats.1.modes.0")
  })

  it("changeTracking requires markdown beside it, in either form", () => {
    rejectsAt(formats(["changeTracking"]), "formats")
    rejectsAt(formats(["html", { type: "changeTracking", modes: ["git-diff"] }]), "formats")
    expect(ok(formats([{ type: "markdown" }, "changeTracking"])).formats.map((f) => f.type)).toEqual(["markdown", "changeTracking"])
  })

  it("empty formats is allowed (metadata only)", () => expect(ok(formats([])).formats).toEqual([]))

  it("bare names of formats that need options say which object to send", () => {
    rejectsAt(formats(["json"]), "formats.0", /json format must be an object/)
    rejectsAt(formats(["question"]), "formats.0", /question format must be an object/)
    rejectsAt(formats(["highlights"]), "formats.0", /highlights format must be an object/)
    rejectsAt(formats(["attributes"]), "formats.0", /attributes format must be an object/)
  })

  it("json needs a schema or a prompt; question and highlights need text", () => {
    rejectsAt(formats([{ type: "json" }]), "formats.0", /schema`, a `prompt`/)
    rejectsAt(formats([{ type: "json", schema: "string" }]), "formats.0.schema")
    rejectsAt(formats([{ type: "question", question: "  " }]), "formats.0.question", /must not be empty/)
    rejectsAt(formats([{ type: "highlights" }]), "formats.0.query", /Missing/)
    rejectsAt(formats([{ type: "query", prompt: "p", mode: "loose" }]), "formats.0.mode")
  })

  it("unknown format names and types are rejected with the valid list", () => {
    rejectsAt(formats(["markdwn"]), "formats.0", /Unknown format name: expected one of markdown/)
    rejectsAt(formats([{ type: "pdf" }]), "formats.0", /Expected a format/)
    rejectsAt(formats([42]), "formats.0", /Expected a format/)
    rejectsAt(scrape(withUrl({ formats: "markdown" })), "formats")
  })
})

const parsers = (list: unknown) => scrape(withUrl({ parsers: list }))

describe("parsers", () => {
  it("accepts strings and objects, applies defaults", () => {
    expect(ok(parsers(["pdf"])).parsers).toEqual([{ type: "pdf", mode: "auto", pageMarkers: false, pages: false, blocks: false }])
    expect(ok(parsers(["image", { type: "image" }])).parsers).toEqual([{ type: "image" }, { type: "image" }])
    const r = ok(parsers([{ type: "pdf", mode: "ocr", maxPages: 10_000, pageMarkers: true, pages: true, blocks: true }]))
    expect(pdfParser(r)).toEqual({ type: "pdf", mode: "ocr", maxPages: 10_000, pageMarkers: true, pages: true, blocks: true })
  })

  it("empty parsers means no PDF parser (Base64 passthrough)", () => {
    const r = ok(parsers([]))
    expect(r.parsers).toEqual([])
    expect(pdfParser(r)).toBeUndefined()
  })

  it("maps the SDK's deprecated pageMarkdown to pages", () => {
    expect(pdfParser(ok(parsers([{ type: "pdf", pageMarkdown: true }])))?.pages).toBe(true)
  })

  it("maxPages is 1..10000 and mode is an enum", () => {
    rejectsAt(parsers([{ type: "pdf", maxPages: 0 }]), "parsers.0.maxPages")
    rejectsAt(parsers([{ type: "pdf", maxPages: 10_001 }]), "parsers.0.maxPages")
    ok(parsers([{ type: "pdf", maxPages: 1 }]))
    rejectsAt(parsers([{ type: "pdf", mode: "accurate" }]), "parsers.0.mode")
    rejectsAt(parsers(["docx"]), "parsers.0")
    rejectsAt(parsers([{ mode: "fast" }]), "parsers.0")
  })
})
