/**
 * A minimal PDF writer for hostile inputs: numbered objects (dictionaries, or dictionaries with a
 * stream), a correct cross-reference table and trailer. Nothing here validates the objects; that
 * is the point, the generators in Hostile.ts write trees a real producer never would.
 */
import { once } from "node:events"
import { createDeflate } from "node:zlib"

export type PdfObject = string | { readonly dict: string; readonly stream: Uint8Array }

const latin1 = (text: string): Buffer => Buffer.from(text, "latin1")

/** Writes objects 1..n (object 1 is the catalog) with an xref table whose offsets are exact. */
export const pdfDocument = (objects: ReadonlyArray<PdfObject>): Buffer => {
  const parts: Array<Buffer> = [latin1("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")]
  let at = parts[0].length
  const offsets: Array<number> = []
  const push = (part: Buffer) => {
    parts.push(part)
    at += part.length
  }
  objects.forEach((object, index) => {
    offsets.push(at)
    if (typeof object === "string") {
      push(latin1(`${index + 1} 0 obj\n${object}\nendobj\n`))
    } else {
      const dict = object.dict.replace(/>>\s*$/, `/Length ${object.stream.length} >>`)
      push(latin1(`${index + 1} 0 obj\n${dict}\nstream\n`))
      push(Buffer.from(object.stream))
      push(latin1("\nendstream\nendobj\n"))
    }
  })
  const xrefAt = at
  const entries = offsets.map((offset) => `${String(offset).padStart(10, "0")} 00000 n \n`).join("")
  push(latin1(`xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${entries}`))
  push(latin1(`trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xrefAt}\n%%EOF\n`))
  return Buffer.concat(parts)
}

/**
 * zlib-deflates `unit` repeated until `totalBytes`, streaming, so a 300 MB stream never exists
 * uncompressed: the output is what a FlateDecode content stream holds.
 */
export const deflateRepeated = async (unit: string, totalBytes: number): Promise<Buffer> => {
  const chunkUnits = Math.max(1, Math.floor((1024 * 1024) / unit.length))
  const chunk = latin1(unit.repeat(chunkUnits))
  const deflate = createDeflate({ level: 9 })
  const out: Array<Buffer> = []
  deflate.on("data", (data: Buffer) => out.push(data))
  const ended = once(deflate, "end")
  let written = 0
  while (written < totalBytes) {
    const piece = written + chunk.length <= totalBytes ? chunk : chunk.subarray(0, Math.ceil((totalBytes - written) / unit.length) * unit.length)
    written += piece.length
    if (!deflate.write(piece)) await once(deflate, "drain")
  }
  deflate.end()
  await ended
  return Buffer.concat(out)
}
