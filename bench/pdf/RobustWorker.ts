/**
 * Child process of the robustness run: reads PDFs named by the parent over IPC, one at a time, and
 * answers with what happened (pages and characters, or the error's tag and reason). The parent
 * kills and replaces it when a file runs past its budget, so one hang cannot stall the run.
 */
import { Cause, Effect, Exit, Stream } from "effect"
import { readFileSync } from "node:fs"
import { pdfReader } from "@strata/pdf"

export interface RobustAnswer {
  readonly file: string
  readonly outcome: "ok" | "error" | "crash"
  readonly pages?: number
  readonly failedPages?: number
  readonly chars?: number
  readonly reason?: string
  readonly message?: string
  readonly ms: number
}

const run = async (file: string, budgetMs: number): Promise<RobustAnswer> => {
  const t0 = performance.now()
  const bytes = new Uint8Array(readFileSync(file))
  const exit = await Effect.runPromiseExit(Effect.scoped(Effect.gen(function*() {
    const result = yield* pdfReader.read({ bytes, format: "pdf", options: { mode: "auto", deadline: Date.now() + budgetMs } })
    let pages = 0, failed = 0, chars = 0
    yield* Stream.runForEach(result.pages, (page) => Effect.sync(() => {
      pages++
      if (page.status === "failed") failed++
      for (const block of page.blocks) chars += block.content.length
    }))
    return { pages, failed, chars }
  })))
  const ms = performance.now() - t0
  if (Exit.isSuccess(exit)) return { file, outcome: "ok", pages: exit.value.pages, failedPages: exit.value.failed, chars: exit.value.chars, ms }
  const failure = exit.cause.reasons.find(Cause.isFailReason)
  if (failure !== undefined) {
    const error = failure.error
    return { file, outcome: "error", reason: error.reason._tag, message: error.reason.message.slice(0, 200), ms }
  }
  return { file, outcome: "crash", message: Cause.pretty(exit.cause).slice(0, 400), ms }
}

process.on("message", (message: { file: string; budgetMs: number }) => {
  run(message.file, message.budgetMs).then(
    (answer) => process.send?.(answer),
    (error) => process.send?.({ file: message.file, outcome: "crash", message: String(error).slice(0, 400), ms: 0 } satisfies RobustAnswer)
  )
})
process.send?.({ ready: true })
