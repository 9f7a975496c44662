/**
 * decodeBody: legacy-encoded pages fetched from a real server (declared by header, by meta,
 * undeclared with a BOM) and the rules of evidence on their own.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import iconv from "iconv-lite"
import { decodeBody, encodingForLabel } from "../../src/fetch/Charset.ts"
import { fetchWith, open } from "./FetchHarness.ts"
import { startServer } from "./TestServer.ts"

const japanese = "日本語のページです。東京、ｶﾀｶﾅ、①②、髙橋"
const russian = "Съешь же ещё этих мягких французских булок, да выпей чаю. №5"

const page = (body: string, head = ""): string => `<!DOCTYPE html><html><head>${head}<title>t</title></head><body><p>${body}</p></body></html>`

interface Served {
  readonly contentType: string
  readonly bytes: Buffer
  readonly expected: string
  readonly charset: string
}

const served: Record<string, Served> = {
  "/sjis-header": { contentType: "text/html; charset=Shift_JIS", bytes: iconv.encode(page(japanese), "cp932"), expected: japanese, charset: "shift_jis" },
  "/sjis-meta": { contentType: "text/html", bytes: iconv.encode(page(japanese, `<meta charset="shift_jis">`), "cp932"), expected: japanese, charset: "shift_jis" },
  "/sjis-http-equiv": {
    contentType: "text/html",
    bytes: iconv.encode(page(japanese, `<meta http-equiv="Content-Type" content="text/html; charset=x-sjis">`), "cp932"),
    expected: japanese,
    charset: "shift_jis"
  },
  "/cp1251-header": { contentType: "text/html;charset=windows-1251", bytes: iconv.encode(page(russian), "windows-1251"), expected: russian, charset: "windows-1251" },
  "/cp1251-meta": { contentType: "text/html", bytes: iconv.encode(page(russian, `<meta charset='cp1251' />`), "windows-1251"), expected: russian, charset: "windows-1251" },
  "/utf8-bom": { contentType: "text/html", bytes: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(page(russian))]), expected: russian, charset: "utf-8" },
  "/utf16-bom": { contentType: "text/html; charset=windows-1251", bytes: Buffer.concat([Buffer.from([0xff, 0xfe]), iconv.encode(page(japanese), "utf-16le")]), expected: japanese, charset: "utf-16le" },
  "/eucjp-xml": { contentType: "application/xml", bytes: iconv.encode(`<?xml version="1.0" encoding="EUC-JP"?><r>${japanese}</r>`, "euc-jp"), expected: japanese, charset: "euc-jp" }
}

describe("decodeBody on fetched pages", () => {
  it.live("decodes Shift_JIS, windows-1251, EUC-JP and BOM-marked pages as declared", () =>
    Effect.gen(function*() {
      const server = yield* startServer((req, res) => {
        const s = served[req.url ?? ""]
        res.writeHead(200, { "content-type": s.contentType })
        res.end(s.bytes)
      })
      for (const [path, s] of Object.entries(served)) {
        const response = yield* fetchWith(open, `${server.origin}${path}`)
        const decoded = decodeBody(response.body, response.headers["content-type"])
        assert.strictEqual(decoded.charset, s.charset, path)
        assert.include(decoded.text, s.expected, path)
        assert.notInclude(decoded.text, "\ufeff", path)
      }
    }))
})

describe("decodeBody rules", () => {
  const bytes = (s: string, encoding = "utf-8"): Uint8Array => iconv.encode(s, encoding)

  it.effect("prefers the header over the meta declaration, and a BOM over both", () =>
    Effect.sync(() => {
      const body = bytes(page(russian, `<meta charset="iso-8859-5">`), "windows-1251")
      assert.strictEqual(decodeBody(body, "text/html; charset=cp1251").charset, "windows-1251")
      assert.strictEqual(decodeBody(body, "text/html").charset, "iso-8859-5")
      const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(page(russian, `<meta charset="windows-1251">`))])
      assert.strictEqual(decodeBody(bom, "text/html; charset=iso-8859-1").text.includes(russian), true)
    }))

  it.effect("maps labels as WHATWG does", () =>
    Effect.sync(() => {
      assert.strictEqual(encodingForLabel(" Latin1 "), "windows-1252")
      assert.strictEqual(encodingForLabel("ISO-8859-1"), "windows-1252")
      assert.strictEqual(encodingForLabel("us-ascii"), "windows-1252")
      assert.strictEqual(encodingForLabel("gb2312"), "gbk")
      assert.strictEqual(encodingForLabel("\"utf8\""), "utf-8")
      assert.strictEqual(encodingForLabel("ks_c_5601-1987"), "euc-kr")
      assert.strictEqual(encodingForLabel("bogus-charset"), undefined)
      // "iso-8859-1" content really is windows-1252: 0x93/0x94 are curly quotes, not C1 controls.
      assert.strictEqual(decodeBody(Buffer.from([0x93, 0x68, 0x69, 0x94]), "text/plain; charset=iso-8859-1").text, "\u201chi\u201d")
    }))

  it.effect("decodes GBK, Big5 and EUC-KR declared in a meta tag", () =>
    Effect.sync(() => {
      const chinese = "简体中文网页"
      const traditional = "繁體中文網頁"
      const korean = "한국어 웹 페이지"
      assert.include(decodeBody(bytes(page(chinese, `<meta charset="gb2312">`), "gbk"), undefined).text, chinese)
      assert.include(decodeBody(bytes(page(traditional, `<meta charset="big5">`), "big5hkscs"), undefined).text, traditional)
      assert.include(decodeBody(bytes(page(korean, `<meta charset="euc-kr">`), "cp949"), "text/html").text, korean)
    }))

  it.effect("ignores declarations inside comments, unknown labels, and meta claims of UTF-16", () =>
    Effect.sync(() => {
      const commented = bytes(page("café", `<!-- <meta charset="shift_jis"> -->`))
      assert.strictEqual(decodeBody(commented, "text/html").charset, "utf-8")
      assert.strictEqual(decodeBody(bytes(page("café")), "text/html; charset=nonsense").text.includes("café"), true)
      assert.strictEqual(decodeBody(bytes(page("café", `<meta charset="utf-16">`)), undefined).charset, "utf-8")
    }))

  it.effect("lets valid non-ASCII UTF-8 win over a blanket iso-8859-1 header or meta, but not real Latin-1", () =>
    Effect.sync(() => {
      assert.deepStrictEqual(decodeBody(bytes(page("Grüße, café")), "text/html; charset=ISO-8859-1").charset, "utf-8")
      assert.include(decodeBody(bytes(page("Grüße, café")), "text/html; charset=ISO-8859-1").text, "Grüße, café")
      assert.include(decodeBody(bytes(page("Grüße, café"), "windows-1252"), "text/html; charset=ISO-8859-1").text, "Grüße, café")
      assert.strictEqual(decodeBody(bytes(page("plain ascii")), "text/html; charset=ISO-8859-1").charset, "windows-1252")
      const metaLatin1 = bytes(page("“asks”", `<meta http-equiv="Content-Type" content="text/html; charset=ISO-8859-1" />`))
      assert.include(decodeBody(metaLatin1, "text/html").text, "“asks”")
    }))

  it.effect("falls back to UTF-8 when the bytes are valid UTF-8, otherwise windows-1252", () =>
    Effect.sync(() => {
      assert.deepStrictEqual(decodeBody(bytes("naïve — ok"), undefined), { text: "naïve — ok", charset: "utf-8" })
      const latin = decodeBody(bytes("naïve café", "windows-1252"), "text/html")
      assert.deepStrictEqual(latin, { text: "naïve café", charset: "windows-1252" })
      assert.deepStrictEqual(decodeBody(new Uint8Array(0), undefined), { text: "", charset: "utf-8" })
    }))

  it.effect("finds a meta declaration after a long head, and in quoted or unquoted attribute forms", () =>
    Effect.sync(() => {
      const longHead = `<script>${"x".repeat(3000)}</script><META HTTP-EQUIV=content-type CONTENT="text/html;charset=KOI8-R">`
      const result = decodeBody(bytes(page(russian, longHead), "koi8-r"), "text/html")
      assert.strictEqual(result.charset, "koi8-r")
      assert.include(result.text, russian.replace("№", "?").slice(0, 20))
    }))
})
