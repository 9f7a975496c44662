/**
 * A ZIP writer for hostile office files: stored or deflated entries whose content is produced
 * chunk by chunk (a 400 MB document.xml is deflated as it is generated, never held whole), with
 * honest sizes and CRCs in the local headers and the central directory, so the archive passes the
 * reader's declared-size and ratio checks exactly as a real producer's would.
 */
import { once } from "node:events"
import { crc32, createDeflateRaw } from "node:zlib"

export interface ZipEntry {
  readonly name: string
  /** The content, as a string or as chunks produced lazily. */
  readonly content: string | Uint8Array | (() => Iterable<Uint8Array>)
  /** Stored (method 0) rather than deflated; ODF wants its `mimetype` stored. */
  readonly stored?: boolean
}

interface Packed {
  readonly name: Buffer
  readonly data: Buffer
  readonly crc: number
  readonly size: number
  readonly method: number
}

const chunksOf = (content: ZipEntry["content"]): Iterable<Uint8Array> =>
  typeof content === "string" ? [Buffer.from(content, "utf8")] : content instanceof Uint8Array ? [content] : content()

const pack = async (entry: ZipEntry): Promise<Packed> => {
  let crc = 0
  let size = 0
  if (entry.stored === true) {
    const parts = [...chunksOf(entry.content)].map((part) => Buffer.from(part))
    for (const part of parts) {
      crc = crc32(part, crc)
      size += part.length
    }
    return { name: Buffer.from(entry.name, "utf8"), data: Buffer.concat(parts), crc, size, method: 0 }
  }
  const deflate = createDeflateRaw({ level: 9 })
  const out: Array<Buffer> = []
  deflate.on("data", (data: Buffer) => out.push(data))
  const ended = once(deflate, "end")
  for (const part of chunksOf(entry.content)) {
    crc = crc32(part, crc)
    size += part.length
    if (!deflate.write(part)) await once(deflate, "drain")
  }
  deflate.end()
  await ended
  return { name: Buffer.from(entry.name, "utf8"), data: Buffer.concat(out), crc, size, method: 8 }
}

/** 1980-01-01 00:00 in DOS form, so the same inputs give the same bytes. */
const dosTime = 0
const dosDate = (0 << 9) | (1 << 5) | 1

export interface ZipStats {
  readonly bytes: Buffer
  /** Largest uncompressed / compressed ratio over the entries. */
  readonly maxRatio: number
  readonly uncompressedBytes: number
}

export const zipArchive = async (entries: ReadonlyArray<ZipEntry>): Promise<ZipStats> => {
  const packed: Array<Packed> = []
  for (const entry of entries) packed.push(await pack(entry))
  const parts: Array<Buffer> = []
  const central: Array<Buffer> = []
  let at = 0
  for (const entry of packed) {
    const local = Buffer.alloc(30)
    local.writeUInt32LE(0x04034b50, 0)
    local.writeUInt16LE(20, 4)
    local.writeUInt16LE(0x0800, 6) // UTF-8 names
    local.writeUInt16LE(entry.method, 8)
    local.writeUInt16LE(dosTime, 10)
    local.writeUInt16LE(dosDate, 12)
    local.writeUInt32LE(entry.crc >>> 0, 14)
    local.writeUInt32LE(entry.data.length, 18)
    local.writeUInt32LE(entry.size, 22)
    local.writeUInt16LE(entry.name.length, 26)
    local.writeUInt16LE(0, 28)
    const header = Buffer.alloc(46)
    header.writeUInt32LE(0x02014b50, 0)
    header.writeUInt16LE(20, 4)
    header.writeUInt16LE(20, 6)
    header.writeUInt16LE(0x0800, 8)
    header.writeUInt16LE(entry.method, 10)
    header.writeUInt16LE(dosTime, 12)
    header.writeUInt16LE(dosDate, 14)
    header.writeUInt32LE(entry.crc >>> 0, 16)
    header.writeUInt32LE(entry.data.length, 20)
    header.writeUInt32LE(entry.size, 24)
    header.writeUInt16LE(entry.name.length, 28)
    header.writeUInt32LE(at, 42)
    central.push(header, entry.name)
    parts.push(local, entry.name, entry.data)
    at += local.length + entry.name.length + entry.data.length
  }
  const centralBytes = Buffer.concat(central)
  const end = Buffer.alloc(22)
  end.writeUInt32LE(0x06054b50, 0)
  end.writeUInt16LE(packed.length, 8)
  end.writeUInt16LE(packed.length, 10)
  end.writeUInt32LE(centralBytes.length, 12)
  end.writeUInt32LE(at, 16)
  const ratios = packed.filter((entry) => entry.size > 1024 * 1024).map((entry) => entry.size / Math.max(1, entry.data.length))
  return {
    bytes: Buffer.concat([...parts, centralBytes, end]),
    maxRatio: Math.max(0, ...ratios),
    uncompressedBytes: packed.reduce((sum, entry) => sum + entry.size, 0)
  }
}
