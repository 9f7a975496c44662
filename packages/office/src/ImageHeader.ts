/**
 * The type and pixel size of a stored image from its first bytes, without decoding it: tiny
 * icons are skipped and "a large picture" is judged before any pixels are touched.
 */

export type RasterType = "png" | "jpeg" | "gif" | "bmp" | "tiff" | "webp"

export interface ImageHeader {
  readonly type: RasterType
  readonly width: number
  readonly height: number
}

const jpegSize = (b: Uint8Array, view: DataView): { width: number; height: number } | undefined => {
  let at = 2
  while (at + 9 < b.length) {
    if (b[at] !== 0xff) return undefined
    const marker = b[at + 1]
    // Fill bytes and markers without a length.
    if (marker === 0xff) {
      at++
      continue
    }
    if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      at += 2
      continue
    }
    const length = view.getUint16(at + 2)
    // SOF0..SOF15 except DHT (C4), JPG (C8) and DAC (CC) carry the frame size.
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { height: view.getUint16(at + 5), width: view.getUint16(at + 7) }
    }
    at += 2 + length
  }
  return undefined
}

const tiffSize = (b: Uint8Array, view: DataView): { width: number; height: number } | undefined => {
  const little = b[0] === 0x49
  const u16 = (o: number) => view.getUint16(o, little)
  const u32 = (o: number) => view.getUint32(o, little)
  const ifd = u32(4)
  if (ifd + 2 > b.length) return undefined
  let width = 0
  let height = 0
  const count = u16(ifd)
  for (let i = 0; i < count; i++) {
    const e = ifd + 2 + i * 12
    if (e + 12 > b.length) break
    const tag = u16(e)
    const type = u16(e + 2)
    const value = type === 3 ? u16(e + 8) : u32(e + 8)
    if (tag === 256) width = value
    else if (tag === 257) height = value
  }
  return width > 0 && height > 0 ? { width, height } : undefined
}

const webpSize = (b: Uint8Array, view: DataView): { width: number; height: number } | undefined => {
  const chunk = String.fromCharCode(b[12], b[13], b[14], b[15])
  if (chunk === "VP8 " && b.length >= 30) return { width: view.getUint16(26, true) & 0x3fff, height: view.getUint16(28, true) & 0x3fff }
  if (chunk === "VP8L" && b.length >= 25) {
    const bits = view.getUint32(21, true)
    return { width: (bits & 0x3fff) + 1, height: ((bits >> 14) & 0x3fff) + 1 }
  }
  if (chunk === "VP8X" && b.length >= 30) {
    const w = b[24] | (b[25] << 8) | (b[26] << 16)
    const h = b[27] | (b[28] << 8) | (b[29] << 16)
    return { width: w + 1, height: h + 1 }
  }
  return undefined
}

/** The header of a PNG, JPEG, GIF, BMP, TIFF or WebP image; undefined for anything else or a broken header. */
export const readImageHeader = (b: Uint8Array): ImageHeader | undefined => {
  if (b.length < 16) return undefined
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength)
  try {
    if (b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47 && b.length >= 24) {
      return { type: "png", width: view.getUint32(16), height: view.getUint32(20) }
    }
    if (b[0] === 0xff && b[1] === 0xd8) {
      const size = jpegSize(b, view)
      return size === undefined ? undefined : { type: "jpeg", ...size }
    }
    if (b[0] === 0x47 && b[1] === 0x49 && b[2] === 0x46) return { type: "gif", width: view.getUint16(6, true), height: view.getUint16(8, true) }
    if (b[0] === 0x42 && b[1] === 0x4d && b.length >= 26) {
      return { type: "bmp", width: Math.abs(view.getInt32(18, true)), height: Math.abs(view.getInt32(22, true)) }
    }
    if ((b[0] === 0x49 && b[1] === 0x49 && b[2] === 0x2a) || (b[0] === 0x4d && b[1] === 0x4d && b[3] === 0x2a)) {
      const size = tiffSize(b, view)
      return size === undefined ? undefined : { type: "tiff", ...size }
    }
    if (b[0] === 0x52 && b[1] === 0x49 && b[2] === 0x46 && b[3] === 0x46 && b[8] === 0x57 && b[9] === 0x45) {
      const size = webpSize(b, view)
      return size === undefined ? undefined : { type: "webp", ...size }
    }
  } catch {
    return undefined
  }
  return undefined
}
