/**
 * No document can crash or freeze the server: the real server, reading in reader processes, is
 * sent PDFs whose one page inflates to tens of millions of operators. Each gets a typed error
 * within its timeout (plus a second), `/health` keeps answering every 50 ms probe quickly, and
 * an ordinary document parsed afterwards reads normally.
 */
import { PDFDocument, StandardFonts } from "pdf-lib"
import { deflateSync } from "node:zlib"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Strata } from "strata"
import { startTestServer, type TestServer } from "./support.ts"

/** A one-page PDF whose content stream is `body` repeated `times`, deflated (small on disk, huge inflated). */
const bombPdf = (body: string, times: number): Buffer => {
  const stream = deflateSync(Buffer.from(body.repeat(times)), { level: 1 })
  const objects = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
    null,
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"
  ]
  const parts: Array<Buffer> = [Buffer.from("%PDF-1.4\n")]
  const offsets: Array<number> = []
  let at = parts[0].length
  objects.forEach((object, i) => {
    offsets.push(at)
    const chunk = object === null
      ? Buffer.concat([Buffer.from(`${i + 1} 0 obj\n<< /Length ${stream.length} /Filter /FlateDecode >>\nstream\n`), stream, Buffer.from("\nendstream\nendobj\n")])
      : Buffer.from(`${i + 1} 0 obj\n${object}\nendobj\n`)
    parts.push(chunk)
    at += chunk.length
  })
  const xref = [`xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`, ...offsets.map((o) => `${String(o).padStart(10, "0")} 00000 n \n`)].join("")
  parts.push(Buffer.from(`${xref}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${at}\n%%EOF\n`))
  return Buffer.concat(parts)
}

const ordinaryPdf = async (): Promise<Uint8Array> => {
  const doc = await PDFDocument.create()
  const font = await doc.embedFont(StandardFonts.Helvetica)
  doc.addPage([612, 792]).drawText("An ordinary page of text.", { x: 72, y: 700, size: 12, font })
  return doc.save()
}

let server: TestServer
let auth: Record<string, string>

/** Probes /health every 50 ms while `work` runs; the longest wait for an answer, in ms. */
const probing = async <A>(work: Promise<A>): Promise<{ result: A; worstMs: number }> => {
  let worst = 0
  let done = false
  const loop = (async () => {
    while (!done) {
      const started = performance.now()
      const response = await fetch(`${server.url}/health`)
      await response.arrayBuffer()
      worst = Math.max(worst, performance.now() - started)
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  })()
  const result = await work
  done = true
  await loop
  return { result, worstMs: worst }
}

const parse = async (bytes: Uint8Array, name: string, options: Record<string, unknown>) => {
  const form = new FormData()
  form.append("file", new Blob([new Uint8Array(bytes)], { type: "application/pdf" }), name)
  form.append("options", JSON.stringify(options))
  const started = Date.now()
  const response = await fetch(`${server.url}/v2/parse`, { method: "POST", headers: auth, body: form })
  return { status: response.status, body: (await response.json()) as Record<string, any>, ms: Date.now() - started }
}

beforeAll(async () => {
  server = await startTestServer(Strata.layer({ ocr: false, isolation: { workers: 1, memoryMb: 400 } }), { apiKeys: ["test-key"] })
  auth = { authorization: "Bearer test-key" }
})

afterAll(async () => {
  await server?.close()
})

describe("hostile documents against the real server", () => {
  it("a page of path operators past the memory limit: 422 DOCUMENT_TOO_COMPLEX, health answers throughout", async () => {
    const pdf = bombPdf("0 0 m 1 1 l S\n", 8_000_000)
    expect(pdf.length).toBeLessThan(2_000_000)
    const { result, worstMs } = await probing(parse(pdf, "paths.pdf", { timeout: 30_000 }))
    expect(result.status).toBe(422)
    expect(result.body.code).toBe("DOCUMENT_TOO_COMPLEX")
    expect(result.body.error).toContain("400 MB")
    expect(result.ms).toBeLessThan(31_000)
    expect(worstMs).toBeLessThan(250)
  }, 60_000)

  it("a page of text operators that cannot finish in time: answered at its timeout, health answers throughout", async () => {
    const pdf = bombPdf("BT /F1 12 Tf 10 10 Td (hello) Tj ET\n", 3_000_000)
    const { result, worstMs } = await probing(parse(pdf, "text.pdf", { timeout: 4000 }))
    expect([408, 422]).toContain(result.status)
    expect(result.ms).toBeLessThan(4000 + 1000)
    expect(worstMs).toBeLessThan(250)
  }, 60_000)

  it("an ordinary document afterwards reads normally", async () => {
    const result = await parse(await ordinaryPdf(), "ordinary.pdf", { formats: ["markdown"] })
    expect(result.status).toBe(200)
    expect(result.body.data.markdown).toContain("An ordinary page of text.")
  }, 60_000)
})
