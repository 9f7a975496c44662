/**
 * The full pipeline with every engine this server ships: the fetch engine and the PDF and
 * office readers. The HTTP server, the CLI and library users all compose from here.
 */
import { DocumentReaders, Fetcher, Pipeline } from "@strata/core"
import { officeReaders } from "@strata/office"
import { pdfReader } from "@strata/pdf"
import { Layer } from "effect"

/** Every format reader, PDF first. */
export const readers = [pdfReader, ...officeReaders]

export const ReadersLive = DocumentReaders.layer(readers)

/** The `Pipeline` service with the real fetch engine and every reader. */
export const StrataLive = Pipeline.layer.pipe(Layer.provide([Fetcher.layer, ReadersLive]))
