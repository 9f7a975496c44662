/**
 * Whether the server's memory settles when the same hostile inputs come again and again: posts
 * each chosen input `--rounds` times in turn and prints the server's and its children's RSS after
 * every round (after a pause), so growth that goes on round after round shows as a leak and
 * growth that stops shows as the allocator's high-water mark.
 *
 *   node -C @strata/source bench/reliability/soak.ts [--only a,b] [--rounds N] [--pause-ms N]
 */
import { parseArgs } from "node:util"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { generate, generators } from "./Hostile.ts"
import { postParse, rssParts, ServerProcess, sleep } from "./ServerProcess.ts"

const { values: args } = parseArgs({
  options: {
    only: { type: "string", default: "pdf-random,docx-random,pdf-random-header" },
    rounds: { type: "string", default: "10" },
    "pause-ms": { type: "string", default: "3000" }
  }
})
const MB = 1024 * 1024
const names = args.only.split(",").map((s) => s.trim())
const inputs = await Promise.all(generators.filter((g) => names.includes(g.name)).map((g) => generate(g, "full")))
const server = new ServerProcess({ logFile: join(tmpdir(), "strata-soak.log") })
await server.start()
const show = (label: string) => {
  const parts = rssParts(server.pid)
  process.stdout.write(`${label}: server ${(parts.server / MB).toFixed(0)} MB, children ${(parts.children / MB).toFixed(0)} MB\n`)
}
await sleep(Number(args["pause-ms"]))
show("idle")
for (let round = 1; round <= Number(args.rounds); round++) {
  for (const input of inputs) await postParse(server.baseUrl, input, { timeout: 30_000 })
  await sleep(Number(args["pause-ms"]))
  show(`round ${round}`)
}
await server.stop()
