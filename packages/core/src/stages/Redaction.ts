/**
 * The Redaction stage: runs on every page's blocks, and on a web page's markdown and HTML, before anything
 * is written out or handed to a model, so that what it masks never leaves the pipeline. The
 * default is a no-op (nothing is redacted unless a layer says so); `redactPII` plugs in here.
 * A block whose content a redactor rewrites keeps its kind and box; its span follows the new text.
 */
import { Context, Effect } from "effect"
import type { Page } from "../Document.ts"
import type { StageError } from "./StageError.ts"

export interface Redactor {
  readonly name: string
  readonly redactPage: (page: Page) => Effect.Effect<Page, StageError>
  /** A web page's markdown (or HTML, when there is no `redactHtml`), as written out. */
  readonly redactText: (text: string) => Effect.Effect<string, StageError>
  /** A web page's HTML, as written out: a redactor that rewrites text must not break the markup. */
  readonly redactHtml?: ((html: string) => Effect.Effect<string, StageError>) | undefined
}

export const noRedaction: Redactor = {
  name: "none",
  redactPage: Effect.succeed,
  redactText: Effect.succeed
}

/** `first`, then `second`, on everything either redacts. */
export const chainRedactors = (first: Redactor, second: Redactor): Redactor => {
  if (first === noRedaction) return second
  const html = (redactor: Redactor) => redactor.redactHtml ?? redactor.redactText
  return {
    name: `${first.name}+${second.name}`,
    redactPage: (page) => Effect.flatMap(first.redactPage(page), second.redactPage),
    redactText: (text) => Effect.flatMap(first.redactText(text), second.redactText),
    redactHtml: (text) => Effect.flatMap(html(first)(text), html(second))
  }
}

/** The redaction step in force; the default redacts nothing. */
export const Redaction = Context.Reference<Redactor>("@strata/core/Redaction", { defaultValue: () => noRedaction })
