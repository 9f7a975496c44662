/**
 * The engine options as a tagged union, so a pipeline (or a pool thread) can pick an engine from
 * data: `{ _tag: "tesseract", ... }`, `{ _tag: "paddle", ... }`, `{ _tag: "lines", ... }` (our own
 * line model, LineEngine.ts) or `{ _tag: "cascade", ... }` (the line engine, and tesseract for the
 * pages it reads with little confidence: CascadeEngine.ts).
 *
 * The cascade is the default (issue 17's 1.5 s a page). On dense 300-dpi A4 pages it reads as
 * tesseract does (CER 0.03 / 0.02 / 0.12% against 0.00 / 0.01 / 0.12%, clean / scanned / photocopy,
 * held-out text) at a fifth of the CPU (1.2-1.8 s against 6.3-6.9 s a page on the day's machine),
 * and the pages its model is unsure of, handwriting and bad 150-dpi copies, go to tesseract
 * (bench/results/ocr-cascade-dense-heldout.md, ocr-handwriting.md, models/ocr/README.md).
 */
import { Effect } from "effect"
import type { Scope } from "effect"
import type { OcrEngine, OcrError } from "@strata/core"
import * as CascadeEngine from "./CascadeEngine.ts"
import type { CascadeOptions } from "./CascadeEngine.ts"
import * as LineEngine from "./LineEngine.ts"
import type { LineEngineOptions } from "./LineEngine.ts"
import * as PaddleEngine from "./PaddleEngine.ts"
import type { PaddleOptions } from "./PaddleEngine.ts"
import * as TesseractEngine from "./TesseractEngine.ts"
import type { TesseractOptions } from "./TesseractEngine.ts"

export type EngineChoice =
  | ({ readonly _tag: "tesseract" } & TesseractOptions)
  | ({ readonly _tag: "paddle" } & PaddleOptions)
  | ({ readonly _tag: "lines" } & LineEngineOptions)
  | ({ readonly _tag: "cascade"; readonly first?: LineEngineOptions | undefined; readonly second?: TesseractOptions | undefined } & CascadeOptions)

export const defaultEngine: EngineChoice = { _tag: "cascade" }

export const makeEngine = (choice: EngineChoice): Effect.Effect<OcrEngine["Service"], OcrError, Scope.Scope> => {
  switch (choice._tag) {
    case "tesseract":
      return TesseractEngine.make(choice)
    case "paddle":
      return PaddleEngine.make(choice)
    case "lines":
      return LineEngine.make(choice)
    case "cascade":
      return LineEngine.make(choice.first ?? {}).pipe(Effect.flatMap((first) => CascadeEngine.make(first, TesseractEngine.make(choice.second ?? {}), choice)))
  }
}

/** Rough working-set per engine thread (MB), measured with bench/ocr; bounds the pool size by memory. */
export const engineMemoryMb = (choice: EngineChoice): number => ({ tesseract: 250, paddle: 450, lines: 250, cascade: 450 })[choice._tag]

/** Seconds per 300-dpi page on one core before anything is measured (bench/ocr on this machine). */
export const engineSecondsPerPage = (choice: EngineChoice): number => ({ tesseract: 2, paddle: 6, lines: 1, cascade: 1 })[choice._tag]
