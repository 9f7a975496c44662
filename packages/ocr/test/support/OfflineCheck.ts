/**
 * Run by Offline.integration.test.ts inside a network namespace with no interfaces: both
 * engines must start and read a page with no network at all (models, traineddata and the
 * tesseract wasm core all come from local packages). Prints one JSON line.
 */
import { Effect } from "effect"
import { OcrEngine, rawImage } from "@strata/core"
import * as PaddleEngine from "../../src/PaddleEngine.ts"
import * as TesseractEngine from "../../src/TesseractEngine.ts"
import { makeTextPdf, renderAll } from "./SyntheticPages.ts"

const { bytes } = await makeTextPdf({ pages: 1, seed: 2, paragraphs: 1 })
const [g] = await renderAll(bytes, 150)
const out: Record<string, string> = {}
for (const layer of [TesseractEngine.layer(), PaddleEngine.layer()]) {
  const r = await Effect.runPromise(
    Effect.gen(function*() {
      return yield* (yield* OcrEngine).recognize(rawImage(g.data, g.width, g.height, 1))
    }).pipe(Effect.provide(layer), Effect.scoped)
  )
  out[r.engine] = r.lines[0]?.text ?? ""
}
process.stdout.write(JSON.stringify(out) + "\n")
