#!/usr/bin/env -S node --max-semi-space-size=8 --heap-growing-percent=150
/** The `strata` executable. */
import { main } from "./Cli.ts"

const code = await main(process.argv.slice(2), {
  out: (text) => process.stdout.write(text.endsWith("\n") ? text : text + "\n"),
  err: (text) => process.stderr.write(text.endsWith("\n") ? text : text + "\n"),
  tty: process.stderr.isTTY ? (text) => process.stderr.write(text) : undefined
})
process.exitCode = code
