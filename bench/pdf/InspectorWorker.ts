/**
 * Child process that runs Firecrawl's pdf-inspector (native code: a panic or a hang must not take
 * the bench with it) on PDFs sent by the parent over IPC (`Inspector.ts`), one at a time, and
 * answers with its markdown: the whole document's (`processPdf`, as run.ts scores it) or one
 * string a page (`processPdf` restricted to each page in turn).
 */
import { pdfInspector, pdfInspectorPages } from "./Engines.ts"

export interface InspectorJob { readonly id: number; readonly bytes: Uint8Array; readonly kind: "document" | "pages" }
export type InspectorAnswer =
  | { readonly id: number; readonly pages: ReadonlyArray<string> }
  | { readonly id: number; readonly error: string }

const answer = async (job: InspectorJob): Promise<InspectorAnswer> => {
  try {
    if (job.kind === "pages") return { id: job.id, pages: await pdfInspectorPages(job.bytes) }
    const out = await pdfInspector(job.bytes, "")
    return { id: job.id, pages: [out.markdown] }
  } catch (error) {
    return { id: job.id, error: String(error).slice(0, 300) }
  }
}

process.on("message", (job: InspectorJob) => {
  void answer(job).then((a) => process.send?.(a))
})
process.send?.({ ready: true })
