/**
 * The product fixture score alone (ProductBench.ts), printed; `--save-first-run` records it as
 * the first run (`fixtures/product.first-run.json`), which bench/commerce/run.ts reports beside
 * the current score. Recorded once, before any fix made with these pages in view.
 *
 *   node -C @strata/source bench/commerce/product-fixtures.ts [--save-first-run]
 */
import { writeFileSync } from "node:fs"
import { resolve } from "node:path"
import { parseArgs } from "node:util"
import { PRODUCT_FIELDS, scoreProducts } from "./ProductBench.ts"

const { values: args } = parseArgs({ options: { "save-first-run": { type: "boolean", default: false } } })
const dir = resolve(import.meta.dirname, "fixtures/product")
const { cases, total } = scoreProducts(dir)
for (const f of PRODUCT_FIELDS) process.stdout.write(`${f.padEnd(14)} ${total[f].right}/${total[f].of}\n`)
for (const c of cases) {
  const wrong = PRODUCT_FIELDS.filter((f) => c.tally[f].right < c.tally[f].of).map((f) => `${f} ${c.tally[f].right}/${c.tally[f].of}`)
  process.stdout.write(`${c.name}: ${wrong.join(", ") || "all right"}${c.extra > 0 ? `; extra variants ${c.extra}` : ""}${c.falseSales > 0 ? `; false sales ${c.falseSales}` : ""}\n`)
}
if (args["save-first-run"]) writeFileSync(resolve(dir, "../product.first-run.json"), `${JSON.stringify({ recorded: new Date().toISOString(), total }, null, 2)}\n`)
