/**
 * The worker's handler of a replica's parse, against an in-memory `ParseJobs` and a stub
 * conversion: the data is written as the answer; the pipeline's own error is an answer too (the
 * job completes, no retry); anything else fails the attempt; a job whose row is gone is discarded
 * unread; the conversion's timeout is what is left of the request's.
 */
import { assert, describe, it } from "@effect/vitest"
import { DocumentUnreadable, type Job, ScrapeError, scrapeError } from "@strata/core"
import type { ParseAnswer, ParseInput, ParseJobs } from "@strata/fleet"
import { Effect, Exit, Option, Schema } from "effect"
import { type ConvertUpload, parseJobHandler } from "../src/ParseWorker.ts"

const memoryJobs = (rows: Map<string, ParseInput>, answers: Map<string, ParseAnswer>): ParseJobs["Service"] => ({
  put: (id, input) => Effect.sync(() => void rows.set(id, input)),
  input: (id) => Effect.sync(() => Option.fromNullishOr(rows.get(id))),
  answer: (id, answer) => Effect.sync(() => rows.has(id) && (answers.set(id, answer), true)),
  answerOf: (id) => Effect.sync(() => Option.fromNullishOr(answers.get(id))),
  remove: (id) => Effect.sync(() => void rows.delete(id))
})

const job = (attempt = 1): Job<unknown> => ({ id: "j", queue: "corpus", data: {}, attempt, maxAttempts: 3, deadline: Date.now() + 120_000 })
const row = (): ParseInput => ({
  bytes: new Uint8Array([37, 80, 68, 70]),
  fileName: "long.pdf",
  contentType: "application/pdf",
  options: { formats: ["markdown"], timeout: 60_000 },
  expiresAt: Date.now() + 10_000
})

const setup = (convert: ConvertUpload) => {
  const rows = new Map<string, ParseInput>([["r1", row()]])
  const answers = new Map<string, ParseAnswer>()
  const said: Array<string> = []
  const handle = parseJobHandler(memoryJobs(rows, answers), convert, (line) => said.push(line))
  return { rows, answers, said, handle }
}

describe("parseJobHandler", () => {
  it.effect("writes the data as the answer, converting with the time left of the request", () =>
    Effect.gen(function*() {
      const seen: Array<Record<string, unknown>> = []
      const { answers, said, handle } = setup(async (input, options) => {
        seen.push({ ...options, fileName: input.fileName })
        return { markdown: "# Quay" }
      })
      yield* handle(job(), "r1")
      assert.deepStrictEqual(answers.get("r1"), { _tag: "Data", data: { markdown: "# Quay" } })
      assert.strictEqual(seen[0]!.fileName, "long.pdf")
      // The request's 60 s were asked; 10 s are left of its wait.
      assert.isAtMost(seen[0]!.timeout as number, 10_000)
      assert.isAbove(seen[0]!.timeout as number, 9_000)
      assert.match(said[0]!, /^parsed long\.pdf for a replica \(\d+ ms, attempt 1\)$/)
    }))

  it.effect("says how long the upload waited for a worker, when its row says when it was put", () =>
    Effect.gen(function*() {
      const { rows, said, handle } = setup(async () => ({ markdown: "# Quay" }))
      rows.set("r1", { ...row(), createdAt: Date.now() - 2_500 })
      yield* handle(job(), "r1")
      const waited = /^parsed long\.pdf for a replica \(\d+ ms, attempt 1\); (\d+) ms in the queue$/.exec(said[0]!)
      assert.isNotNull(waited)
      assert.isAtLeast(Number(waited![1]), 2_500)
    }))

  it.effect("the pipeline's error is the answer and completes the job; anything else fails the attempt", () =>
    Effect.gen(function*() {
      const failure = scrapeError(new DocumentUnreadable({ kind: "corrupt", message: "the file is not a readable PDF" }))
      const corrupt = setup(() => Promise.reject(failure))
      assert.isTrue(Exit.isSuccess(yield* Effect.exit(corrupt.handle(job(), "r1"))))
      const answer = corrupt.answers.get("r1")!
      assert.strictEqual(answer._tag, "Error")
      const decoded = Schema.decodeUnknownSync(ScrapeError)((answer as { error: unknown }).error)
      assert.strictEqual(decoded.reason._tag, "DocumentUnreadable")
      assert.strictEqual(decoded.reason.message, "the file is not a readable PDF")

      const crashed = setup(() => Promise.reject(new Error("the database went away")))
      assert.isTrue(Exit.isFailure(yield* Effect.exit(crashed.handle(job(), "r1"))))
      assert.strictEqual(crashed.answers.size, 0)
    }))

  it.effect("a job whose row is gone is discarded without converting", () =>
    Effect.gen(function*() {
      let converted = 0
      const { rows, said, handle } = setup(async () => (converted++, {}))
      rows.clear()
      yield* handle(job(), "r1")
      assert.strictEqual(converted, 0)
      assert.match(said[0]!, /^discarded parse r1/)
    }))
})
