/**
 * The one ZIP reader: the containers of OOXML, ODF and EPUB, for the office readers and for
 * type detection (which looks at `mimetype` and `[Content_Types].xml`).
 *
 * It reads the central directory itself so that limits are checked before anything is
 * inflated: entry count, total declared size, and per-entry compression ratio (zip bombs).
 * Entries are inflated on demand with node's zlib and a hard output cap, so a lying header
 * cannot make us allocate more than the limit either. Besides the ratio, every document has
 * absolute budgets of decoded bytes: one part may inflate to at most `maxEntryBytes`, and all the
 * parts read from one document together to `maxDecodedBytes`, so a part that inflates to hundreds
 * of megabytes at a ratio below the bomb threshold fails fast, before it is decoded or parsed.
 * Failures are `DocumentError`s, thrown: callers parse synchronously and map throws at their
 * Effect boundary.
 */
import { inflateRawSync } from "node:zlib"
import { Corrupt, DocumentError, LimitExceeded, UnsupportedFormat } from "./DocumentReader.ts"

const corrupt = (format: string, message: string) => new DocumentError({ format, reason: new Corrupt({ message }) })
const limitExceeded = (format: string, message: string) => new DocumentError({ format, reason: new LimitExceeded({ message }) })
const unsupported = (format: string, message: string) => new DocumentError({ format, reason: new UnsupportedFormat({ message }) })

export interface ZipLimits {
  readonly maxEntries: number
  /** Sum of the uncompressed sizes of all entries, as the directory declares them. */
  readonly maxTotalBytes: number
  /** Largest uncompressed / compressed ratio accepted for an entry over 1 MiB. */
  readonly maxRatio: number
  /** Most bytes one entry may inflate to (declared, and enforced while inflating). */
  readonly maxEntryBytes: number
  /** Most bytes inflated from one archive in all, over every read. */
  readonly maxDecodedBytes: number
}

const MiB = 1024 * 1024

/**
 * The limits every office document is read under.
 *
 * - 128 MiB per part: the largest part in the test corpus is 0.44 MB (a styles part) and its
 *   largest document decodes to 6.4 MB in all; a sheet at the readers' 2,000,000-cell budget is
 *   64-128 MB of XML (measured 32 bytes a numeric cell), and a 128 MB document.xml (about 20,000
 *   pages of text) was measured to parse in 5.2 s with a 1.7 GB heap: past that a part costs
 *   more than one document may, while a 400 MB document.xml, which the ratio check lets through,
 *   used to hold the server for 15 s.
 * - 512 MiB per document: four parts at the part limit, room for a large workbook's sheets,
 *   shared strings and the pictures OCR reads; well under V8's 0.5 G-character string limit and
 *   the reader's heap.
 */
export const defaultZipLimits: ZipLimits = {
  maxEntries: 20_000,
  maxTotalBytes: 1024 * MiB,
  maxRatio: 500,
  maxEntryBytes: 128 * MiB,
  maxDecodedBytes: 512 * MiB
}

const sizeText = (bytes: number): string =>
  bytes >= MiB ? `${Math.round(bytes / MiB).toLocaleString("en-US")} MB` : `${Math.max(1, Math.round(bytes / 1024)).toLocaleString("en-US")} KB`

interface Entry {
  readonly name: string
  readonly method: number
  readonly flags: number
  readonly compressedSize: number
  readonly size: number
  readonly localOffset: number
}

const textDecoder = new TextDecoder("utf-8")
const latin1 = new TextDecoder("latin1")

export class ZipArchive {
  readonly names: ReadonlyArray<string>
  private readonly entries: Map<string, Entry>
  private readonly lowerNames: Map<string, string>
  private inflated = 0
  private readonly bytes: Uint8Array
  private readonly format: string
  private readonly limits: ZipLimits

  constructor(bytes: Uint8Array, format: string, limits: Partial<ZipLimits> = {}) {
    this.bytes = bytes
    this.format = format
    this.limits = { ...defaultZipLimits, ...limits }
    this.entries = readDirectory(bytes, format, this.limits)
    this.names = [...this.entries.keys()]
    this.lowerNames = new Map(this.names.map((name) => [name.toLowerCase(), name]))
  }

  has(name: string): boolean {
    return this.resolve(name) !== undefined
  }

  /** Part names in OOXML are case-insensitive; producers disagree on case, so we look up both ways. */
  private resolve(name: string): Entry | undefined {
    const clean = name.replace(/^\/+/, "")
    const exact = this.entries.get(clean)
    if (exact !== undefined) return exact
    const other = this.lowerNames.get(clean.toLowerCase())
    return other === undefined ? undefined : this.entries.get(other)
  }

  /** Bytes inflated from this archive so far (the `maxDecodedBytes` budget spent). */
  get decodedBytes(): number {
    return this.inflated
  }

  /**
   * The uncompressed bytes of an entry, or undefined when there is no such entry. `maxBytes`
   * caps this one entry below the archive's limits (type detection reads only small parts).
   */
  read(name: string, maxBytes = Infinity): Uint8Array | undefined {
    const entry = this.resolve(name)
    if (entry === undefined) return undefined
    const { bytes, format } = this
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    const at = entry.localOffset
    if (at + 30 > bytes.length || view.getUint32(at, true) !== 0x04034b50) throw corrupt(format, `zip entry ${entry.name} has no local header`)
    const start = at + 30 + view.getUint16(at + 26, true) + view.getUint16(at + 28, true)
    const end = start + entry.compressedSize
    if (end > bytes.length) throw corrupt(format, `zip entry ${entry.name} is truncated`)
    if (entry.flags & 1) throw unsupported(format, `zip entry ${entry.name} is encrypted`)
    const raw = bytes.subarray(start, end)
    const { maxEntryBytes, maxDecodedBytes } = this.limits
    let out: Uint8Array
    if (entry.method === 0) out = raw
    else if (entry.method === 8) {
      // Refused on the declared size, before a byte is inflated.
      if (entry.size > maxEntryBytes) throw limitExceeded(format, partTooLarge(entry.name, maxEntryBytes, entry.size))
      const left = maxDecodedBytes - this.inflated
      if (entry.size > left) throw limitExceeded(format, documentTooLarge(maxDecodedBytes, this.inflated + entry.size))
      // The declared size is only a hint: the cap is what protects us.
      const cap = Math.max(0, Math.min(left, maxEntryBytes, entry.size + 1024, maxBytes))
      try {
        out = inflateRawSync(raw, { maxOutputLength: Math.max(cap, 1) })
      } catch (error) {
        if (error instanceof RangeError || (error as { code?: string }).code === "ERR_BUFFER_TOO_LARGE") {
          throw limitExceeded(format, cap === maxEntryBytes
            ? partTooLarge(entry.name, maxEntryBytes)
            : cap === left
            ? documentTooLarge(maxDecodedBytes)
            : `zip entry ${entry.name} inflates to more than its declared size of ${sizeText(entry.size)}`)
        }
        throw corrupt(format, `zip entry ${entry.name} cannot be inflated`)
      }
      this.inflated += out.length
    } else throw unsupported(format, `zip entry ${entry.name} uses compression method ${entry.method}`)
    if (out.length > maxBytes) throw limitExceeded(format, `zip entry ${entry.name} is larger than ${sizeText(maxBytes)}`)
    return out
  }

  /** An entry decoded as text (UTF-8, or UTF-16 when it starts with a byte order mark). */
  text(name: string, maxBytes = Infinity): string | undefined {
    const data = this.read(name, maxBytes)
    return data === undefined ? undefined : decodeText(data)
  }
}

/** `bytes`: the size when known (declared), else the message says "more than" the limit. */
const partTooLarge = (name: string, limit: number, bytes?: number): string =>
  `the part ${name} inflates to ${bytes === undefined ? `more than ${sizeText(limit)}` : sizeText(bytes)}; one part may inflate to at most ${sizeText(limit)}`

const documentTooLarge = (limit: number, bytes?: number): string =>
  `the document's parts inflate to ${bytes === undefined ? `more than ${sizeText(limit)}` : sizeText(bytes)} in all; one document may inflate to at most ${sizeText(limit)}`

const decodeText = (data: Uint8Array): string => {
  if (data.length >= 2 && data[0] === 0xff && data[1] === 0xfe) return new TextDecoder("utf-16le").decode(data.subarray(2))
  if (data.length >= 2 && data[0] === 0xfe && data[1] === 0xff) return new TextDecoder("utf-16be").decode(data.subarray(2))
  return textDecoder.decode(data)
}

const readDirectory = (bytes: Uint8Array, format: string, limits: ZipLimits): Map<string, Entry> => {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  // The end-of-central-directory record sits in the last 64 KiB + 22 bytes.
  let eocd = -1
  for (let i = bytes.length - 22; i >= Math.max(0, bytes.length - 65_557); i--) {
    if (view.getUint32(i, true) === 0x06054b50) {
      eocd = i
      break
    }
  }
  if (eocd < 0) throw corrupt(format, "not a zip container (no end of central directory)")
  let count = view.getUint16(eocd + 10, true)
  let offset = view.getUint32(eocd + 16, true)
  if (count === 0xffff || offset === 0xffffffff) {
    // ZIP64: the locator sits just before the EOCD.
    const loc = eocd - 20
    if (loc < 0 || view.getUint32(loc, true) !== 0x07064b50) throw corrupt(format, "broken zip64 directory")
    const rec = Number(view.getBigUint64(loc + 8, true))
    if (rec + 56 > bytes.length || view.getUint32(rec, true) !== 0x06064b50) throw corrupt(format, "broken zip64 directory")
    count = Number(view.getBigUint64(rec + 32, true))
    offset = Number(view.getBigUint64(rec + 48, true))
  }
  if (count > limits.maxEntries) throw limitExceeded(format, `the archive has ${count} entries (limit ${limits.maxEntries})`)
  const entries = new Map<string, Entry>()
  let total = 0
  let at = offset
  for (let n = 0; n < count; n++) {
    if (at + 46 > bytes.length || view.getUint32(at, true) !== 0x02014b50) throw corrupt(format, "broken zip central directory")
    const flags = view.getUint16(at + 8, true)
    const method = view.getUint16(at + 10, true)
    let compressedSize = view.getUint32(at + 20, true)
    let size = view.getUint32(at + 24, true)
    const nameLength = view.getUint16(at + 28, true)
    const extraLength = view.getUint16(at + 30, true)
    const commentLength = view.getUint16(at + 32, true)
    let localOffset = view.getUint32(at + 42, true)
    if (at + 46 + nameLength > bytes.length) throw corrupt(format, "broken zip central directory")
    const nameBytes = bytes.subarray(at + 46, at + 46 + nameLength)
    const name = (flags & 0x800 ? textDecoder : latin1).decode(nameBytes)
    // ZIP64 extra field carries the real sizes when the 32-bit ones are saturated.
    let extra = at + 46 + nameLength
    const extraEnd = Math.min(extra + extraLength, bytes.length)
    while (extra + 4 <= extraEnd) {
      const id = view.getUint16(extra, true)
      const len = view.getUint16(extra + 2, true)
      if (id === 1) {
        let p = extra + 4
        if (size === 0xffffffff && p + 8 <= extraEnd) { size = Number(view.getBigUint64(p, true)); p += 8 }
        if (compressedSize === 0xffffffff && p + 8 <= extraEnd) { compressedSize = Number(view.getBigUint64(p, true)); p += 8 }
        if (localOffset === 0xffffffff && p + 8 <= extraEnd) localOffset = Number(view.getBigUint64(p, true))
      }
      extra += 4 + len
    }
    at += 46 + nameLength + extraLength + commentLength
    total += size
    if (total > limits.maxTotalBytes) throw limitExceeded(format, `the archive declares more than ${sizeText(limits.maxTotalBytes)} of uncompressed parts, the most accepted`)
    if (size > 1024 * 1024 && size / Math.max(1, compressedSize) > limits.maxRatio) {
      throw limitExceeded(format, `zip entry ${name} is compressed more than ${limits.maxRatio} to 1, as only zip bombs are`)
    }
    if (!name.endsWith("/")) entries.set(name.replace(/\\/g, "/").replace(/^\/+/, ""), { name, method, flags, compressedSize, size, localOffset })
  }
  return entries
}
