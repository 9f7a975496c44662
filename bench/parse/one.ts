/**
 * Debug helper: detects one file's format, reads it with the office readers and prints the
 * document info (stderr), the markdown (stdout) and the time taken.
 *
 *   node bench/parse/one.ts path/to/file.docx
 */
import { Effect, Exit, Scope, Stream } from "effect"
import { readFileSync } from "node:fs"
import { DocumentReaders, detectFormat, writeMarkdown } from "@strata/core"
import { LibreOffice, libreOfficeConfig, makeOfficeReaders } from "@strata/office"

/** The configured LibreOffice (.doc, .ppt), kept for the script's life; its profiles go at exit. */
const libreOffice = Effect.runSync(Scope.provide(Effect.flatMap(libreOfficeConfig, LibreOffice.make), Scope.makeUnsafe()))
const officeReaders = makeOfficeReaders({ libreOffice })

const file = process.argv[2]
if (file === undefined) throw new Error("usage: node bench/parse/one.ts FILE")
const bytes = new Uint8Array(readFileSync(file))
const format = detectFormat({ bytes, fileName: file })
if (format === undefined) throw new Error("format not detected")
const started = performance.now()
const exit = await Effect.runPromiseExit(
  Effect.scoped(Effect.gen(function*() {
    const result = yield* DocumentReaders.make(officeReaders).read({ bytes, format, fileName: file, options: { mode: "fast", deadline: Date.now() + 120_000 } })
    const pages = Array.from(yield* Stream.runCollect(result.pages))
    return { info: result.info, markdown: writeMarkdown(pages).markdown }
  }))
)
if (Exit.isFailure(exit)) {
  console.error(String(exit.cause))
  process.exit(1)
}
console.error(`${format}: ${JSON.stringify(exit.value.info)}`)
console.log(exit.value.markdown)
console.error(`${(performance.now() - started).toFixed(1)} ms`)
