/**
 * Where a block's pictures live: readers tag the block that shows an image (its alt-text
 * markdown) with references to the image parts in the container, so that the OCR stage
 * (`ImageOcr.ts`) can recognise them and put their text right after that block.
 *
 * The tag is a symbol-keyed property: it survives the object spreads readers do on blocks,
 * never reaches JSON, and keeps the Block schema (the contract) untouched.
 */
import type { Block } from "@strata/core"

export interface ImageRef {
  /** The part name in the container (`word/media/image1.png`), for messages and de-duplication. */
  readonly part: string
  /** The stored bytes, read on demand so only images that are OCR'd are inflated. */
  readonly load: () => Uint8Array | undefined
  /** Share of the page (or slide) area the picture covers, when the layout says (0..1). */
  readonly coverage?: number | undefined
}

const IMAGES: unique symbol = Symbol.for("@strata/office/images")

type Tagged = Block & { [IMAGES]?: ReadonlyArray<ImageRef> }

/** The block with `refs` added to the images it already shows. */
export const withImages = (block: Block, refs: ReadonlyArray<ImageRef>): Block => {
  if (refs.length === 0) return block
  const tagged = block as Tagged
  return Object.assign(tagged, { [IMAGES]: [...(tagged[IMAGES] ?? []), ...refs] })
}

export const imagesOf = (block: Block): ReadonlyArray<ImageRef> => (block as Tagged)[IMAGES] ?? []

/** The block without its image references (what leaves the reader). */
export const withoutImages = (block: Block): Block => {
  if ((block as Tagged)[IMAGES] === undefined) return block
  const { [IMAGES]: _, ...rest } = block as Tagged
  return rest
}

/** Raster formats worth recognising, by part name (vector EMF/WMF/SVG are not). */
export const isRasterPart = (part: string): boolean => /\.(png|jpe?g|jfif|gif|bmp|dib|tiff?|webp)$/i.test(part)
