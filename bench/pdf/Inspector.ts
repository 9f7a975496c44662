/**
 * pdf-inspector for the benches that score pages one by one (furniture, table neighbours, math):
 * each PDF goes to a child process (InspectorWorker.ts), which is killed and replaced when it runs
 * past its budget or dies, so that the run goes on and counts the failure, as the robustness run
 * does for our reader.
 *
 *   const inspector = new Inspector(); await inspector.pages(bytes); inspector.close()
 */
import { type ChildProcess, fork } from "node:child_process"
import type { InspectorAnswer, InspectorJob } from "./InspectorWorker.ts"

export type InspectorResult = { readonly pages: ReadonlyArray<string> } | { readonly error: string }

export class Inspector {
  private child: ChildProcess | undefined
  private ready: Promise<void> | undefined
  private id = 0
  /** PDFs that failed: an error from the engine, a crash of the child, or a time-out. */
  failures: Array<string> = []

  private readonly budgetMs: number

  constructor(budgetMs = 30_000) {
    this.budgetMs = budgetMs
  }

  private start(): Promise<void> {
    // The child runs with this process's flags (`-C @strata/source`), as run.ts's children do.
    const child = fork(new URL("./InspectorWorker.ts", import.meta.url), [], {
      execArgv: process.execArgv, serialization: "advanced", stdio: ["ignore", "ignore", "inherit", "ipc"]
    })
    this.child = child
    return new Promise((resolve) => child.once("message", () => resolve()))
  }

  private run(bytes: Uint8Array, kind: InspectorJob["kind"], label: string): Promise<InspectorResult> {
    this.ready ??= this.start()
    return this.ready.then(() => new Promise<InspectorResult>((resolve) => {
      const child = this.child!
      const id = ++this.id
      const done = (result: InspectorResult) => {
        clearTimeout(timer)
        child.off("message", onMessage)
        child.off("exit", onExit)
        if ("error" in result) this.failures.push(`${label}: ${result.error}`)
        resolve(result)
      }
      const replace = () => {
        this.child = undefined
        this.ready = undefined
      }
      const onMessage = (a: InspectorAnswer) => {
        if (a.id === id) done("error" in a ? { error: a.error } : { pages: a.pages })
      }
      const onExit = (code: number | null, signal: string | null) => {
        replace()
        done({ error: `the child process died (${signal ?? code})` })
      }
      const timer = setTimeout(() => {
        child.off("exit", onExit)
        child.kill("SIGKILL")
        replace()
        done({ error: `no answer in ${this.budgetMs} ms` })
      }, this.budgetMs)
      child.on("message", onMessage)
      child.on("exit", onExit)
      child.send({ id, bytes, kind } satisfies InspectorJob)
    }))
  }

  /** The markdown of each page (empty pages included), or the error. */
  pages(bytes: Uint8Array, label = "?"): Promise<InspectorResult> {
    return this.run(bytes, "pages", label)
  }

  /** The whole document's markdown as one string (`processPdf`), or the error. */
  document(bytes: Uint8Array, label = "?"): Promise<InspectorResult> {
    return this.run(bytes, "document", label)
  }

  close(): void {
    this.child?.kill("SIGKILL")
    this.child = undefined
    this.ready = undefined
  }
}
