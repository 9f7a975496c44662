/**
 * Hostile inputs for the reliability run, generated here and never downloaded: inflate bombs in
 * PDF content streams, thousands of pages over one stream, a page-tree cycle, office files just
 * under the ZIP limits (core ZipArchive: ratio 500 per entry over 1 MiB, 1 GiB declared in all),
 * entity expansion and external entities, deep nesting, truncated and random files.
 * Each generator is parameterised by size: `quick` for development, `full` for the figures.
 */
import { deflateRepeated, pdfDocument, type PdfObject } from "./PdfBytes.ts"
import { zipArchive, type ZipEntry } from "./ZipBytes.ts"
import { imagePdf, makeTextPdf, renderAll } from "../../packages/ocr/test/support/SyntheticPages.ts"

export type Size = "quick" | "full"

export interface HostileInput {
  readonly name: string
  readonly fileName: string
  readonly description: string
  readonly bytes: Uint8Array
  /** The request's `timeout` option in ms. */
  readonly timeoutMs: number
  /** Copies posted at once (the issue's "three at once"). */
  readonly concurrency: number
  /** How long after the answer RSS is read as "settled", when not the run's default. */
  readonly settleMs?: number | undefined
}

export interface Generator {
  readonly name: string
  readonly make: (size: Size) => Promise<Omit<HostileInput, "name" | "timeoutMs" | "concurrency">>
  readonly timeoutMs?: number
  readonly concurrency?: number
  readonly settleMs?: number
}

const MB = 1024 * 1024
const mb = (bytes: number) => (bytes < MB ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / MB).toFixed(1)} MB`)
const pick = <A>(size: Size, quick: A, full: A): A => (size === "quick" ? quick : full)

/** A deterministic PRNG (mulberry32) so every run writes the same bytes. */
export const prng = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

/** `n` pseudo-random bytes from `seed`: random files that replay byte for byte. */
export const randomBytes = (n: number, seed = 7): Buffer => {
  const random = prng(seed)
  const out = Buffer.alloc(n)
  for (let i = 0; i < n; i++) out[i] = Math.floor(random() * 256)
  return out
}

// ---- PDF ---------------------------------------------------------------------------------------

const helvetica = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"

/** Catalog, one Pages node, `pages` page objects all drawing content object `contentRef`. */
const sharedContentPdf = (pages: number, stream: Uint8Array, filter: boolean): Buffer => {
  const firstPage = 5
  const kids = Array.from({ length: pages }, (_, i) => `${firstPage + i} 0 R`).join(" ")
  const objects: Array<PdfObject> = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    `<< /Type /Pages /Kids [${kids}] /Count ${pages} >>`,
    { dict: filter ? "<< /Filter /FlateDecode >>" : "<< >>", stream },
    helvetica
  ]
  for (let i = 0; i < pages; i++) {
    objects.push("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 3 0 R /Resources << /Font << /F1 4 0 R >> >> >>")
  }
  return pdfDocument(objects)
}

export const textPage = (lines: number, seed = 1): string => {
  const random = prng(seed)
  const words = ["reliability", "document", "server", "memory", "deadline", "worker", "health", "probe", "limit", "stream"]
  let out = "BT /F1 11 Tf 14 TL 72 740 Td\n"
  for (let i = 0; i < lines; i++) {
    const line = Array.from({ length: 9 }, () => words[Math.floor(random() * words.length)]).join(" ")
    out += `(${line}) Tj T*\n`
  }
  return `${out}ET\n`
}

/** An ordinary text PDF (used truncated, and as a fuzz seed). */
export const plainPdf = (pages: number, linesPerPage = 40): Buffer => {
  const objects: Array<PdfObject> = ["<< /Type /Catalog /Pages 2 0 R >>", "", helvetica]
  const kids: Array<string> = []
  for (let p = 0; p < pages; p++) {
    const pageRef = objects.length + 1
    kids.push(`${pageRef} 0 R`)
    objects.push(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents ${pageRef + 1} 0 R /Resources << /Font << /F1 3 0 R >> >> >>`)
    objects.push({ dict: "<< >>", stream: Buffer.from(textPage(linesPerPage, p + 1), "latin1") })
  }
  objects[1] = `<< /Type /Pages /Kids [${kids.join(" ")}] /Count ${pages} >>`
  return pdfDocument(objects)
}

const pdfBomb = (unit: string, full: number, quick: number, what: string): Generator["make"] => async (size) => {
  const inflated = pick(size, quick, full)
  const stream = await deflateRepeated(unit, inflated)
  const bytes = sharedContentPdf(1, stream, true)
  return {
    fileName: "bomb.pdf",
    bytes,
    description: `one page; its FlateDecode content stream inflates to ${mb(inflated)} of ${what} (\`${unit.trim()}\` repeated)`
  }
}

// ---- Office ------------------------------------------------------------------------------------

const contentTypes = (overrides: string) =>
  `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>${overrides}</Types>`
const rels = (target: string, type = "officeDocument") =>
  `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/${type}" Target="${target}"/></Relationships>`
const W = `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"`

/** A docx whose word/document.xml is `body` (chunks), behind `prolog` (a DOCTYPE, say). */
export const docx = (body: string | (() => Iterable<Uint8Array>), prolog = "") =>
  zipArchive([
    { name: "[Content_Types].xml", content: contentTypes(`<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>`) },
    { name: "_rels/.rels", content: rels("word/document.xml") },
    {
      name: "word/document.xml",
      content: typeof body === "string"
        ? `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>${prolog}<w:document ${W}><w:body>${body}</w:body></w:document>`
        : body
    }
  ])

const S = `xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"`
/** An xlsx with one sheet (chunks or text) and optional shared strings. */
export const xlsx = (sheet: string | (() => Iterable<Uint8Array>), sharedStrings?: string) => {
  const entries: Array<ZipEntry> = [
    {
      name: "[Content_Types].xml",
      content: contentTypes(
        `<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>` +
          (sharedStrings === undefined ? "" : `<Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/>`)
      )
    },
    { name: "_rels/.rels", content: rels("xl/workbook.xml") },
    { name: "xl/workbook.xml", content: `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><workbook ${S} xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>` },
    {
      name: "xl/_rels/workbook.xml.rels",
      content: `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/>` +
        (sharedStrings === undefined ? "" : `<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.xml"/>`) +
        `</Relationships>`
    },
    { name: "xl/worksheets/sheet1.xml", content: sheet }
  ]
  if (sharedStrings !== undefined) entries.push({ name: "xl/sharedStrings.xml", content: sharedStrings })
  return zipArchive(entries)
}

/** An ODF text document whose content.xml body is `body`, behind `prolog`. */
export const odt = (body: string, prolog = "") =>
  zipArchive([
    { name: "mimetype", content: "application/vnd.oasis.opendocument.text", stored: true },
    {
      name: "META-INF/manifest.xml",
      content: `<?xml version="1.0" encoding="UTF-8"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2"><manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.text"/><manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/></manifest:manifest>`
    },
    {
      name: "content.xml",
      content: `<?xml version="1.0" encoding="UTF-8"?>${prolog}<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.2"><office:body><office:text>${body}</office:text></office:body></office:document-content>`
    }
  ])

/** Lines of `unit` in 1 MiB chunks until `total` bytes. */
function* repeated(unit: (i: number) => string, total: number, head = "", tail = ""): Iterable<Uint8Array> {
  yield Buffer.from(head)
  let written = 0
  let i = 0
  while (written < total) {
    let chunk = ""
    while (chunk.length < MB && written + chunk.length < total) chunk += unit(i++)
    written += chunk.length
    yield Buffer.from(chunk)
  }
  yield Buffer.from(tail)
}

/** One paragraph over and over: a period under 128 bytes keeps deflate near ratio 300 (the issue's 1.3 MB for 400 MB). */
const paragraph = (_i: number) => `<w:p><w:r><w:t>A paragraph of the near-bomb, the quick brown fox.</w:t></w:r></w:p>`

/** Ten levels of ten: `&lol9;` expands to 10^9 "lol"s (3 GB) in a naive parser. */
const laughs = (root: string) =>
  `<!DOCTYPE ${root} [<!ENTITY lol "lol">` +
  Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i === 0 ? "" : i};`.repeat(10)}">`).join("") +
  `]>`
const xxe = (root: string) => `<!DOCTYPE ${root} [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>`

/** Deep nesting: `depth` elements, opened then closed, around one word. */
const nested = (open: string, close: string, depth: number, inner: string) => open.repeat(depth) + inner + close.repeat(depth)

// ---- Generators --------------------------------------------------------------------------------

export const generators: ReadonlyArray<Generator> = [
  { name: "pdf-paths-bomb", make: pdfBomb("0 0 m 1 1 l S\n", 300 * MB, 4 * MB, "path operators") },
  { name: "pdf-text-bomb", make: pdfBomb("BT /F1 12 Tf 10 10 Td (hello) Tj ET\n", 200 * MB, 4 * MB, "text operators (Helvetica)") },
  {
    name: "pdf-shared-pages",
    make: async (size) => {
      const pages = pick(size, 300, 10_000)
      const bytes = sharedContentPdf(pages, Buffer.from(textPage(40), "latin1"), false)
      return { fileName: "pages.pdf", bytes, description: `${pages.toLocaleString("en")} pages sharing one 40-line text content stream` }
    }
  },
  {
    name: "pdf-page-tree-cycle",
    make: async () => {
      // 2 (root Pages) -> 3 (Pages) -> [4 (Page), 2 (root again)]: Kids point back up the tree.
      const bytes = pdfDocument([
        "<< /Type /Catalog /Pages 2 0 R >>",
        "<< /Type /Pages /Kids [3 0 R] /Count 2 >>",
        "<< /Type /Pages /Parent 2 0 R /Kids [4 0 R 2 0 R] /Count 2 >>",
        "<< /Type /Page /Parent 3 0 R /MediaBox [0 0 612 792] /Contents 5 0 R /Resources << /Font << /F1 6 0 R >> >> >>",
        { dict: "<< >>", stream: Buffer.from(textPage(5), "latin1") },
        helvetica
      ])
      return { fileName: "cycle.pdf", bytes, description: "page tree whose inner Pages node lists the root among its Kids" }
    }
  },
  {
    name: "docx-near-bomb",
    make: async (size) => {
      const total = pick(size, 8 * MB, 400 * MB)
      const zip = await docx(() => repeated(paragraph, total, `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document ${W}><w:body>`, "</w:body></w:document>"))
      return { fileName: "near-bomb.docx", bytes: zip.bytes, description: `word/document.xml inflates to ${mb(zip.uncompressedBytes)} (ratio ${zip.maxRatio.toFixed(0)}, limit 500)` }
    }
  },
  {
    name: "docx-near-bomb-x3",
    concurrency: 3,
    make: async (size) => {
      const total = pick(size, 8 * MB, 400 * MB)
      const zip = await docx(() => repeated(paragraph, total, `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document ${W}><w:body>`, "</w:body></w:document>"))
      return { fileName: "near-bomb.docx", bytes: zip.bytes, description: `three at once: document.xml of ${mb(zip.uncompressedBytes)} (ratio ${zip.maxRatio.toFixed(0)})` }
    }
  },
  {
    name: "xlsx-huge-sheet",
    make: async (size) => {
      const rows = pick(size, 30_000, 2_300_000)
      const row = (i: number) => `<row r="${i + 1}"><c r="A${i + 1}"><v>${i + 1}</v></c><c r="B${i + 1}"><v>${i % 7}</v></c></row>`
      function* sheet(): Iterable<Uint8Array> {
        yield Buffer.from(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?><worksheet ${S}><sheetData>`)
        for (let start = 0; start < rows; start += 10_000) {
          let chunk = ""
          for (let i = start; i < Math.min(rows, start + 10_000); i++) chunk += row(i)
          yield Buffer.from(chunk)
        }
        yield Buffer.from("</sheetData></worksheet>")
      }
      const zip = await xlsx(sheet)
      return { fileName: "huge.xlsx", bytes: zip.bytes, description: `one sheet of ${rows.toLocaleString("en")} rows x 2 columns (${mb(zip.uncompressedBytes)} of XML)` }
    }
  },
  {
    name: "docx-deep-nesting",
    make: async (size) => {
      const depth = pick(size, 1_000, 33_400)
      const body = nested("<w:tbl><w:tr><w:tc>", "</w:tc></w:tr></w:tbl>", depth, "<w:p><w:r><w:t>deep</w:t></w:r></w:p>")
      const zip = await docx(body)
      return { fileName: "deep.docx", bytes: zip.bytes, description: `tables nested ${depth.toLocaleString("en")} deep (${(depth * 3).toLocaleString("en")} nested elements)` }
    }
  },
  {
    name: "html-deep-nesting",
    make: async (size) => {
      const depth = pick(size, 3_000, 100_000)
      const html = `<!doctype html><html><head><title>deep</title></head><body>${nested("<div>", "</div>", depth, "<p>deep</p>")}</body></html>`
      return { fileName: "deep.html", bytes: Buffer.from(html), description: `${depth.toLocaleString("en")} nested <div> elements` }
    }
  },
  {
    name: "docx-billion-laughs",
    make: async () => {
      const zip = await docx(`<w:p><w:r><w:t>&lol9;</w:t></w:r></w:p>`, laughs("w:document"))
      return { fileName: "laughs.docx", bytes: zip.bytes, description: "document.xml DOCTYPE defines 10 levels of 10 entities (10^9 x 'lol')" }
    }
  },
  {
    name: "xlsx-billion-laughs",
    make: async () => {
      const zip = await xlsx(
        `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><worksheet ${S}><sheetData><row r="1"><c r="A1" t="s"><v>0</v></c></row></sheetData></worksheet>`,
        `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>${laughs("sst")}<sst ${S} count="1" uniqueCount="1"><si><t>&lol9;</t></si></sst>`
      )
      return { fileName: "laughs.xlsx", bytes: zip.bytes, description: "sharedStrings.xml entity expansion (10^9 x 'lol')" }
    }
  },
  {
    name: "odt-billion-laughs",
    make: async () => {
      const zip = await odt(`<text:p>&lol9;</text:p>`, laughs("office:document-content"))
      return { fileName: "laughs.odt", bytes: zip.bytes, description: "content.xml entity expansion (10^9 x 'lol')" }
    }
  },
  {
    name: "html-billion-laughs",
    make: async () => {
      const html = `<?xml version="1.0"?>${laughs("html")}<html xmlns="http://www.w3.org/1999/xhtml"><body><p>&lol9;</p></body></html>`
      return { fileName: "laughs.xhtml", bytes: Buffer.from(html), description: "XHTML with an internal subset of 10 levels of 10 entities" }
    }
  },
  {
    name: "docx-xxe",
    make: async () => {
      const zip = await docx(`<w:p><w:r><w:t>before &xxe; after</w:t></w:r></w:p>`, xxe("w:document"))
      return { fileName: "xxe.docx", bytes: zip.bytes, description: "document.xml references an external entity file:///etc/passwd" }
    }
  },
  {
    name: "xlsx-xxe",
    make: async () => {
      const zip = await xlsx(
        `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><worksheet ${S}><sheetData><row r="1"><c r="A1" t="s"><v>0</v></c></row></sheetData></worksheet>`,
        `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>${xxe("sst")}<sst ${S} count="1" uniqueCount="1"><si><t>&xxe;</t></si></sst>`
      )
      return { fileName: "xxe.xlsx", bytes: zip.bytes, description: "sharedStrings.xml references file:///etc/passwd" }
    }
  },
  {
    name: "odt-xxe",
    make: async () => {
      const zip = await odt(`<text:p>before &xxe; after</text:p>`, xxe("office:document-content"))
      return { fileName: "xxe.odt", bytes: zip.bytes, description: "content.xml references file:///etc/passwd" }
    }
  },
  {
    name: "html-xxe",
    make: async () => {
      const html = `<?xml version="1.0"?>${xxe("html")}<html xmlns="http://www.w3.org/1999/xhtml"><body><p>before &xxe; after</p></body></html>`
      return { fileName: "xxe.xhtml", bytes: Buffer.from(html), description: "XHTML referencing file:///etc/passwd" }
    }
  },
  {
    name: "pdf-truncated",
    make: async (size) => {
      const whole = plainPdf(pick(size, 10, 50))
      return { fileName: "truncated.pdf", bytes: whole.subarray(0, whole.length >> 1), description: `a valid ${mb(whole.length)} text PDF cut at half (no xref, no trailer)` }
    }
  },
  {
    name: "docx-truncated",
    make: async (size) => {
      const zip = await docx(Array.from({ length: pick(size, 200, 5_000) }, (_, i) => paragraph(i)).join(""))
      return { fileName: "truncated.docx", bytes: zip.bytes.subarray(0, zip.bytes.length >> 1), description: `a valid ${mb(zip.bytes.length)} docx cut at half (no central directory)` }
    }
  },
  {
    name: "pdf-random",
    make: async (size) => {
      const n = pick(size, 64 * 1024, 4 * MB)
      return { fileName: "random.pdf", bytes: randomBytes(n), description: `${mb(n)} of random bytes named .pdf` }
    }
  },
  {
    name: "docx-random",
    make: async (size) => {
      const n = pick(size, 64 * 1024, 4 * MB)
      return { fileName: "random.docx", bytes: randomBytes(n), description: `${mb(n)} of random bytes named .docx` }
    }
  },
  {
    // Not hostile: the issue's "RSS stays about 550 MB higher after OCR, minutes later". Settled is
    // read after the server's OCR pool has been idle long enough to stop (LazyOcr's 30 s), and its threads' memory has gone back (measured: ~8 s more).
    name: "pdf-scanned-ocr",
    settleMs: 45_000,
    make: async (size) => {
      const pages = pick(size, 2, 6)
      const { bytes: text } = await makeTextPdf({ pages, seed: 13, paragraphs: 4 })
      const images = await renderAll(text, 200)
      const bytes = await imagePdf(images.map((image) => ({ image })))
      return { fileName: "scanned.pdf", bytes, description: `${pages} scanned pages (200 dpi images, no text layer) that need OCR` }
    }
  },
  {
    name: "pdf-random-header",
    make: async (size) => {
      const n = pick(size, 64 * 1024, 4 * MB)
      const bytes = Buffer.concat([Buffer.from("%PDF-1.7\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n"), randomBytes(n)])
      return { fileName: "random-header.pdf", bytes, description: `a PDF header, a catalog, then ${mb(n)} of random bytes` }
    }
  }
]

/** Runs a generator with its defaults filled in. */
export const generate = async (generator: Generator, size: Size): Promise<HostileInput> => ({
  name: generator.name,
  timeoutMs: generator.timeoutMs ?? 30_000,
  concurrency: generator.concurrency ?? 1,
  settleMs: generator.settleMs,
  ...(await generator.make(size))
})
