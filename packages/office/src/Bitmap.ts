/**
 * A small decoder for Windows bitmaps (BMP/DIB) to grey pixels: OCR's image decoder (sharp)
 * does not read BMP, yet old Word files embed scans as uncompressed bitmaps. Handles the
 * uncompressed 1/4/8-bit palette and 24/32-bit forms; RLE and others return undefined.
 */

export interface GreyPixels {
  readonly data: Uint8Array
  readonly width: number
  readonly height: number
}

const grey = (r: number, g: number, b: number): number => Math.round(0.299 * r + 0.587 * g + 0.114 * b)

export const decodeBitmap = (b: Uint8Array): GreyPixels | undefined => {
  if (b.length < 54 || b[0] !== 0x42 || b[1] !== 0x4d) return undefined
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength)
  const offset = view.getUint32(10, true)
  const headerSize = view.getUint32(14, true)
  const width = view.getInt32(18, true)
  const rawHeight = view.getInt32(22, true)
  const bits = view.getUint16(28, true)
  const compression = view.getUint32(30, true)
  const height = Math.abs(rawHeight)
  // 3 = bitfields: for 32-bit images written by Office it is BGRA order in practice.
  if (width <= 0 || height === 0 || (compression !== 0 && !(compression === 3 && bits === 32))) return undefined
  if (![1, 4, 8, 24, 32].includes(bits) || width * height > 100_000_000) return undefined
  const stride = Math.ceil((width * bits) / 32) * 4
  if (offset + stride * height > b.length) return undefined
  const paletteAt = 14 + headerSize
  const colours = bits <= 8 ? view.getUint32(46, true) || 1 << bits : 0
  const palette = new Uint8Array(Math.max(colours, 0))
  for (let i = 0; i < colours && paletteAt + i * 4 + 2 < b.length; i++) {
    palette[i] = grey(b[paletteAt + i * 4 + 2], b[paletteAt + i * 4 + 1], b[paletteAt + i * 4])
  }
  const data = new Uint8Array(width * height)
  for (let y = 0; y < height; y++) {
    // Rows are stored bottom-up unless the height is negative.
    const row = offset + (rawHeight > 0 ? height - 1 - y : y) * stride
    for (let x = 0; x < width; x++) {
      let v: number
      if (bits === 24 || bits === 32) {
        const p = row + x * (bits / 8)
        v = grey(b[p + 2], b[p + 1], b[p])
      } else {
        const bit = x * bits
        const byte = b[row + (bit >> 3)]
        const index = (byte >> (8 - bits - (bit & 7))) & ((1 << bits) - 1)
        v = palette[index] ?? 0
      }
      data[y * width + x] = v
    }
  }
  return { data, width, height }
}
