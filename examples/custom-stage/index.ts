/**
 * Plugs a stage of your own into the pipeline through a layer: a redaction step that masks email
 * addresses and phone numbers on every page before anything is written out, so neither the
 * markdown nor `data.blocks` ever holds them. The same `stages` option takes a `layout`,
 * `tables`, `readingOrder` or `ocr` layer of your own.
 *
 *   node examples/custom-stage/index.ts <file>
 */
import { Effect } from "effect"
import { readFile } from "node:fs/promises"
import { basename } from "node:path"
import { createStrata, type Page, type Redactor, withContent } from "strata"

const EMAIL = /[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g
const PHONE = /\+?\d[\d ()-]{7,}\d/g

const mask = (text: string) => text.replace(EMAIL, "<EMAIL>").replace(PHONE, "<PHONE>")

const redactContacts: Redactor = {
  name: "contacts",
  // withContent: the masked block keeps its kind and place; its structure (the unmasked table or
  // list it was written from) is dropped, so nothing downstream can write the original back.
  redactPage: (page: Page) => Effect.succeed({ ...page, blocks: page.blocks.map((block) => withContent(block, mask(block.content))) }),
  redactText: (markdown: string) => Effect.succeed(mask(markdown))
}

const file = process.argv[2]
if (file === undefined) {
  console.error("usage: node examples/custom-stage/index.ts <file>")
  process.exit(2)
}

await using strata = createStrata({ ocr: false, stages: { redaction: redactContacts } })
const data = await strata.parse({ bytes: new Uint8Array(await readFile(file)), fileName: basename(file) })
process.stdout.write(`${data.markdown ?? ""}\n`)
