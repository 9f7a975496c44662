/**
 * The full pipeline with every engine this server ships: the fetch engine, the PDF reader with
 * OCR (auto mode OCRs only the pages that need it) and the office readers. The HTTP server, the
 * CLI and library users all compose from here.
 */
import { DocumentReaders, Fetcher, Pipeline } from "@strata/core"
import { makeOfficeReaders } from "@strata/office"
import { makePdfReader } from "@strata/pdf"
import { Effect, Layer } from "effect"
import { makeLazyOcrPool } from "./LazyOcr.ts"

/** Every format reader, PDF (with OCR) first. */
export const ReadersLive = Layer.effect(
  DocumentReaders,
  Effect.map(makeLazyOcrPool, (ocr) => DocumentReaders.make([makePdfReader({ ocr }), ...makeOfficeReaders({ ocr })]))
)

/** The `Pipeline` service with the real fetch engine and every reader. */
export const StrataLive = Pipeline.layer.pipe(Layer.provide([Fetcher.layer, ReadersLive]))
