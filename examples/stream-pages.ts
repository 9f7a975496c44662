/**
 * Reads a long document page by page with the `Pipeline` service's `parseStream` (the Effect
 * API): each page's markdown is printed as soon as it is ready, and nothing keeps the whole
 * document in memory. `examples/stream-pdf` does the same with the plain-promise API.
 */
import { Effect, Stream } from "effect"
import { readFile } from "node:fs/promises"
import { basename } from "node:path"
import { Pipeline, Strata } from "strata"

const file = process.argv[2]
if (file === undefined) {
  console.error("usage: node examples/stream-pages.ts <file>")
  process.exit(2)
}
const bytes = new Uint8Array(await readFile(file))

const program = Effect.gen(function*() {
  // The Pipeline takes decoded options: the contract's JSON is validated once, here.
  const options = yield* Strata.validateParseOptions({ parsers: [{ type: "pdf", pageMarkers: true }] })
  const pipeline = yield* Pipeline
  yield* pipeline.parseStream({ bytes, fileName: basename(file) }, options).pipe(
    Stream.runForEach((event) =>
      Effect.sync(() => {
        if (event.type === "page") process.stdout.write(event.chunk)
        else process.stdout.write(`\n\n(${String(event.data.metadata?.numPages)} pages)\n`)
      })
    )
  )
})

await Effect.runPromise(program.pipe(Effect.provide(Strata.layer())))
