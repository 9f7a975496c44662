/**
 * The module a reader process runs (see `ReaderPool` in core): the default readers — PDF with the
 * heuristic Layout, Tables and ReadingOrder stages, and the office readers — serving the documents
 * the server sends. OCR is forwarded to the server's engine.
 */
import { serveReaders } from "@strata/core"
import { buildDefaultReaders } from "./Readers.ts"

serveReaders(buildDefaultReaders)
