/**
 * Turns a fetched body into text in the encoding the page was written in.
 *
 * Order of evidence, as browsers weigh it (WHATWG Encoding + HTML "determine the character
 * encoding"): a byte order mark, then the Content-Type charset, then an XML declaration or a
 * `<meta charset>` / `http-equiv` declaration near the top, then the bytes themselves (valid
 * UTF-8 stays UTF-8, anything else is windows-1252, the web's legacy default). One departure:
 * a blanket "iso-8859-1" declaration loses to a body that is valid, non-ASCII UTF-8. Labels go
 * through the WHATWG label table, so "latin1", "x-sjis" or "gb2312" decode as browsers do.
 */
import iconv from "iconv-lite"

export interface DecodedBody {
  readonly text: string
  /** The WHATWG name of the encoding used, lower-case ("utf-8", "shift_jis", "windows-1251"). */
  readonly charset: string
}

/** WHATWG labels, grouped by the encoding they mean. */
const labelGroups: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
  ["utf-8", ["unicode-1-1-utf-8", "unicode11utf8", "unicode20utf8", "utf-8", "utf8", "x-unicode20utf8"]],
  ["ibm866", ["866", "cp866", "csibm866", "ibm866"]],
  ["iso-8859-2", ["csisolatin2", "iso-8859-2", "iso-ir-101", "iso8859-2", "iso88592", "iso_8859-2", "iso_8859-2:1987", "l2", "latin2"]],
  ["iso-8859-3", ["csisolatin3", "iso-8859-3", "iso-ir-109", "iso8859-3", "iso88593", "iso_8859-3", "iso_8859-3:1988", "l3", "latin3"]],
  ["iso-8859-4", ["csisolatin4", "iso-8859-4", "iso-ir-110", "iso8859-4", "iso88594", "iso_8859-4", "iso_8859-4:1988", "l4", "latin4"]],
  ["iso-8859-5", ["csisolatincyrillic", "cyrillic", "iso-8859-5", "iso-ir-144", "iso8859-5", "iso88595", "iso_8859-5", "iso_8859-5:1988"]],
  ["iso-8859-6", ["arabic", "asmo-708", "csiso88596e", "csiso88596i", "csisolatinarabic", "ecma-114", "iso-8859-6", "iso-8859-6-e", "iso-8859-6-i", "iso-ir-127", "iso8859-6", "iso88596", "iso_8859-6", "iso_8859-6:1987"]],
  ["iso-8859-7", ["csisolatingreek", "ecma-118", "elot_928", "greek", "greek8", "iso-8859-7", "iso-ir-126", "iso8859-7", "iso88597", "iso_8859-7", "iso_8859-7:1987", "sun_eu_greek"]],
  ["iso-8859-8", ["csiso88598e", "csisolatinhebrew", "hebrew", "iso-8859-8", "iso-8859-8-e", "iso-ir-138", "iso8859-8", "iso88598", "iso_8859-8", "iso_8859-8:1988", "visual"]],
  ["iso-8859-8-i", ["csiso88598i", "iso-8859-8-i", "logical"]],
  ["iso-8859-10", ["csisolatin6", "iso-8859-10", "iso-ir-157", "iso8859-10", "iso885910", "l6", "latin6"]],
  ["iso-8859-13", ["iso-8859-13", "iso8859-13", "iso885913"]],
  ["iso-8859-14", ["iso-8859-14", "iso8859-14", "iso885914"]],
  ["iso-8859-15", ["csisolatin9", "iso-8859-15", "iso8859-15", "iso885915", "iso_8859-15", "l9"]],
  ["iso-8859-16", ["iso-8859-16"]],
  ["koi8-r", ["cskoi8r", "koi", "koi8", "koi8-r", "koi8_r"]],
  ["koi8-u", ["koi8-ru", "koi8-u"]],
  ["macintosh", ["csmacintosh", "mac", "macintosh", "x-mac-roman"]],
  ["windows-874", ["dos-874", "iso-8859-11", "iso8859-11", "iso885911", "tis-620", "windows-874"]],
  ["windows-1250", ["cp1250", "windows-1250", "x-cp1250"]],
  ["windows-1251", ["cp1251", "windows-1251", "x-cp1251"]],
  ["windows-1252", ["ansi_x3.4-1968", "ascii", "cp1252", "cp819", "csisolatin1", "ibm819", "iso-8859-1", "iso-ir-100", "iso8859-1", "iso88591", "iso_8859-1", "iso_8859-1:1987", "l1", "latin1", "us-ascii", "windows-1252", "x-cp1252"]],
  ["windows-1253", ["cp1253", "windows-1253", "x-cp1253"]],
  ["windows-1254", ["cp1254", "csisolatin5", "iso-8859-9", "iso-ir-148", "iso8859-9", "iso88599", "iso_8859-9", "iso_8859-9:1989", "l5", "latin5", "windows-1254", "x-cp1254"]],
  ["windows-1255", ["cp1255", "windows-1255", "x-cp1255"]],
  ["windows-1256", ["cp1256", "windows-1256", "x-cp1256"]],
  ["windows-1257", ["cp1257", "windows-1257", "x-cp1257"]],
  ["windows-1258", ["cp1258", "windows-1258", "x-cp1258"]],
  ["x-mac-cyrillic", ["x-mac-cyrillic", "x-mac-ukrainian"]],
  ["gbk", ["chinese", "csgb2312", "csiso58gb231280", "gb2312", "gb_2312", "gb_2312-80", "gbk", "iso-ir-58", "x-gbk"]],
  ["gb18030", ["gb18030"]],
  ["big5", ["big5", "big5-hkscs", "cn-big5", "csbig5", "x-x-big5"]],
  ["euc-jp", ["cseucpkdfmtjapanese", "euc-jp", "x-euc-jp"]],
  ["iso-2022-jp", ["csiso2022jp", "iso-2022-jp"]],
  ["shift_jis", ["csshiftjis", "ms932", "ms_kanji", "shift-jis", "shift_jis", "sjis", "windows-31j", "x-sjis"]],
  ["euc-kr", ["cseuckr", "csksc56011987", "euc-kr", "iso-ir-149", "korean", "ks_c_5601-1987", "ks_c_5601-1989", "ksc5601", "ksc_5601", "windows-949"]],
  ["utf-16be", ["unicodefffe", "utf-16be"]],
  ["utf-16le", ["csunicode", "iso-10646-ucs-2", "ucs-2", "unicode", "unicodefeff", "utf-16", "utf-16le"]],
  ["x-user-defined", ["x-user-defined"]]
]

const labels = new Map<string, string>(labelGroups.flatMap(([name, ls]) => ls.map((l) => [l, name] as const)))

/** The WHATWG encoding name for a label ("Latin1" -> "windows-1252"), or undefined when unknown. */
export const encodingForLabel = (label: string): string | undefined =>
  labels.get(label.trim().replace(/^["']|["']$/g, "").trim().toLowerCase())

/** WHATWG decoders are supersets of the classic tables; pick iconv-lite's matching superset. */
const iconvName: Record<string, string> = {
  shift_jis: "cp932",
  "euc-kr": "cp949",
  big5: "big5hkscs",
  "iso-8859-8-i": "iso-8859-8"
}

const decodeWith = (bytes: Uint8Array, encoding: string): string | undefined => {
  if (encoding === "utf-8") return new TextDecoder("utf-8", { ignoreBOM: false }).decode(bytes)
  const name = iconvName[encoding] ?? encoding
  if (iconv.encodingExists(name)) return iconv.decode(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), name, { stripBOM: true })
  // iconv-lite lacks a few (iso-2022-jp, x-mac-cyrillic); Node's ICU-backed TextDecoder has them.
  try {
    return new TextDecoder(encoding).decode(bytes)
  } catch {
    return undefined
  }
}

const bomEncoding = (bytes: Uint8Array): string | undefined => {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return "utf-8"
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return "utf-16be"
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return "utf-16le"
  return undefined
}

/** The charset parameter of a Content-Type header value, if any. */
export const charsetParameter = (contentType: string | undefined): string | undefined => {
  if (contentType === undefined) return undefined
  const match = /;\s*charset\s*=\s*("([^"]*)"|[^;\s]*)/i.exec(contentType)
  if (match === null) return undefined
  return match[2] ?? match[1]
}

/** How far into the document a declaration is looked for. WHATWG says 1024; real pages put long heads first. */
const prescanBytes = 8192

/** The encoding an XML declaration names (`<?xml version="1.0" encoding="Shift_JIS"?>`). */
const xmlDeclaration = (head: string): string | undefined => {
  const match = /^\s*<\?xml\s[^>]*?encoding\s*=\s*["']([^"']+)["']/i.exec(head)
  return match === null ? undefined : match[1]
}

/**
 * The encoding a `<meta charset>` or `<meta http-equiv="content-type" content="...; charset=...">`
 * declares in the head. Comments are skipped so a commented-out declaration does not count.
 */
const metaDeclaration = (head: string): string | undefined => {
  const text = head.replace(/<!--[\s\S]*?(-->|$)/g, "")
  const tagPattern = /<meta[\s/]([^>]*)>?/gi
  for (let tag = tagPattern.exec(text); tag !== null; tag = tagPattern.exec(text)) {
    const attributes = new Map<string, string>()
    const attrPattern = /([^\s=/>]+)(?:\s*=\s*("([^"]*)"|'([^']*)'|[^\s>]*))?/g
    for (let a = attrPattern.exec(tag[1]); a !== null; a = attrPattern.exec(tag[1])) {
      const name = a[1].toLowerCase()
      if (!attributes.has(name)) attributes.set(name, a[3] ?? a[4] ?? a[2] ?? "")
    }
    const charset = attributes.get("charset")
    if (charset !== undefined && charset !== "") return charset
    if (attributes.get("http-equiv")?.toLowerCase() === "content-type") {
      const fromContent = /charset\s*=\s*["']?([^"';\s]+)/i.exec(attributes.get("content") ?? "")
      if (fromContent !== null) return fromContent[1]
    }
  }
  return undefined
}

const hasNonAscii = (bytes: Uint8Array): boolean => bytes.some((b) => b >= 0x80)

const isValidUtf8 = (bytes: Uint8Array): boolean => {
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(bytes)
    return true
  } catch {
    return false
  }
}

/** The encoding a declaration inside the document names, adjusted as HTML requires. */
const declaredInDocument = (bytes: Uint8Array): string | undefined => {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, prescanBytes)).toString("latin1")
  const label = xmlDeclaration(head) ?? metaDeclaration(head)
  if (label === undefined) return undefined
  const encoding = encodingForLabel(label)
  // A declaration read as ASCII cannot truthfully say UTF-16; HTML treats it as UTF-8.
  if (encoding === "utf-16le" || encoding === "utf-16be") return "utf-8"
  if (encoding === "x-user-defined") return "windows-1252"
  return encoding
}

/**
 * Decodes a body given its Content-Type header value (or undefined). Never throws: an unknown
 * or undecodable label falls through to the next piece of evidence.
 */
export const decodeBody = (body: Uint8Array, contentTypeHeader: string | undefined): DecodedBody => {
  const candidates: Array<string | undefined> = [bomEncoding(body)]
  const fromHeader = charsetParameter(contentTypeHeader)
  const headerEncoding = fromHeader === undefined ? undefined : encodingForLabel(fromHeader)
  const documentEncoding = headerEncoding === undefined ? declaredInDocument(body) : undefined
  // Servers and templates that stamp "iso-8859-1" on everything are common; UTF-8 text with
  // non-ASCII characters is practically never valid windows-1252 prose, so valid UTF-8 wins over
  // that one label. (Browsers would show mojibake here; clean text is worth more than fidelity to it.)
  if ((headerEncoding ?? documentEncoding) === "windows-1252" && hasNonAscii(body) && isValidUtf8(body)) candidates.push("utf-8")
  candidates.push(headerEncoding)
  candidates.push(headerEncoding === undefined ? documentEncoding : declaredInDocument(body))
  for (const encoding of candidates) {
    if (encoding === undefined || encoding === "x-user-defined") continue
    const text = decodeWith(body, encoding)
    if (text !== undefined) return { text, charset: encoding }
  }
  if (isValidUtf8(body)) return { text: new TextDecoder("utf-8").decode(body), charset: "utf-8" }
  return { text: decodeWith(body, "windows-1252") ?? "", charset: "windows-1252" }
}
