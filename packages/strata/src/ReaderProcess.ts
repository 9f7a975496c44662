/**
 * The module a reader process runs (see `ReaderPool` in core): the default readers — PDF with the
 * heuristic Layout, Tables and ReadingOrder stages, and the office readers — serving the documents
 * the server sends. OCR is forwarded to the server's engine.
 *
 * The process's settings come in its environment (the server's own, inherited) and are read here,
 * at its entry, through `Config`: the reader resources (page workers, LibreOffice) are built once
 * and live as long as the process, shared by its readers with and without OCR.
 */
import { serveReaders } from "@strata/core"
import { Effect, Layer, Scope } from "effect"
import { buildDefaultReaders, ReaderResources } from "./Readers.ts"

const resources = Effect.runPromise(Layer.buildWithScope(ReaderResources, Scope.makeUnsafe()))

serveReaders((ocr) => Effect.flatMap(Effect.promise(() => resources), (context) => Effect.provide(buildDefaultReaders(ocr), context)))
