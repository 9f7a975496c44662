/**
 * A worker process for the queue tests: `QueueWorker.ts <url> <queue> <results dir>` works the
 * queue with one slot through the pg-boss layer and prints one line per event on stdout:
 * `ready`, `started <job id> <attempt>`, `done <job id>`, `double <job id>` (a result that was
 * already there). A job whose data says `hang` (and whose attempt is the first) never ends, so a
 * test can kill the process mid-job; one whose data has `sleepMs` takes that long. SIGTERM stops
 * the worker as `strata worker` stops: no new jobs, the running ones finish, then `stopped`. A result is a file named after the job id, created with
 * `wx`: a second write of the same result fails, and is reported, rather than overwriting it.
 */
import { Effect, Redacted } from "effect"
import { writeFile } from "node:fs/promises"
import { join } from "node:path"
import { JobQueue } from "@strata/core"
import { layer } from "../../src/index.ts"

const [url, queue, results] = process.argv.slice(2)
if (url === undefined || queue === undefined || results === undefined) {
  console.error("usage: QueueWorker.ts <url> <queue> <results dir>")
  process.exit(2)
}
const say = (line: string) => process.stdout.write(`${line}\n`)

const program = Effect.gen(function*() {
  const jobs = yield* JobQueue
  yield* jobs.define(queue, { retries: 2, backoffMs: 1000, deadlineMs: 60_000 })
  yield* jobs.work(queue, { slots: 1 }, (job) =>
    Effect.gen(function*() {
      say(`started ${job.id} ${job.attempt}`)
      const data = job.data as { hang?: boolean; sleepMs?: number }
      if (data.hang === true && job.attempt === 1) return yield* Effect.never
      if (typeof data.sleepMs === "number") yield* Effect.sleep(data.sleepMs)
      const wrote = yield* Effect.tryPromise(() => writeFile(join(results, job.id), `${process.pid}\n`, { flag: "wx" })).pipe(
        Effect.as(true),
        Effect.catch(() => Effect.succeed(false))
      )
      say(wrote ? `done ${job.id}` : `double ${job.id}`)
    }))
  say("ready")
  yield* Effect.callback<void>((resume) => void process.once("SIGTERM", () => resume(Effect.void)))
  say("stopping")
})

Effect.runPromise(Effect.scoped(program).pipe(Effect.provide(layer({ url: Redacted.make(url) })))).then(() => {
  say("stopped")
  process.exit(0)
})
