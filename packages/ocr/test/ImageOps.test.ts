/** Orientation and skew estimation on a rendered page turned by known amounts, and the renderer's embedded-scan path. */
import { describe, expect, it } from "vitest"
import { applyOrientation, estimateOrientation } from "../src/ImageOps.ts"
import { openRenderer } from "../../pdf/src/PageRenderer.ts"
import { degrade, imagePdf, makeTextPdf, renderAll } from "./support/SyntheticPages.ts"

describe("estimateOrientation", async () => {
  const { bytes } = await makeTextPdf({ pages: 1, seed: 5, paragraphs: 3 })
  const [page] = await renderAll(bytes, 150)

  it.each([
    { turn: 0, rotation: 0 },
    { turn: 90, rotation: 270 },
    { turn: 180, rotation: 180 },
    { turn: 270, rotation: 90 }
  ])("undoes a $turn degree turn", async ({ turn, rotation }) => {
    const turned = await degrade(page, { rotate: turn })
    const o = await estimateOrientation(turned)
    expect(o.rotation).toBe(rotation)
    expect(Math.abs(o.skew)).toBeLessThan(0.3)
    const upright = await applyOrientation(turned, o)
    expect([upright.width, upright.height]).toEqual([page.width, page.height])
  })

  it.each([2.5, -3.5])("measures a %s degree skew", async (skew) => {
    const o = await estimateOrientation(await degrade(page, { rotate: skew }))
    expect(o.rotation).toBe(0)
    expect(o.skew).toBeCloseTo(-skew, 0)
  })

  it("takes a full-page scan's pixels directly instead of painting the page", async () => {
    const pdf = await imagePdf([{ image: page }])
    const renderer = await openRenderer(pdf)
    try {
      const r = await renderer.render(1, 150)
      expect(r.via).toBe("embedded")
      expect([r.image.width, r.image.height]).toEqual([page.width, page.height])
      expect(r.region).toEqual([0, 0, 1, 1])
      // The text PDF has no image: it is painted.
      const painted = await openRenderer(bytes)
      const p = await painted.render(1, 100)
      await painted.close()
      expect(p.via).toBe("render")
      expect(p.image.width).toBe(Math.ceil(612 * 100 / 72))
    } finally {
      await renderer.close()
    }
  })
})
