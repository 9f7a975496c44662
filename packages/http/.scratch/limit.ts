import { Effect, Layer } from "effect"
import { startServer } from "../src/index.ts"
import { Pipeline } from "../src/CoreShim.ts"
const pipeline = Layer.succeed(Pipeline, Pipeline.of({
  scrape: () => Effect.succeed({}),
  parse: (file) => Effect.succeed({ size: file.bytes.length })
}))
const server = await startServer({ pipeline, config: { port: 0, apiKeys: ["k"], writeLog: console.log } })
for (const size of [1024, 10 * 1024 * 1024, 50 * 1024 * 1024 - 1, 50 * 1024 * 1024, 50 * 1024 * 1024 + 1]) {
  const form = new FormData()
  form.append("file", new Blob([new Uint8Array(size).fill(65)]), "max.pdf")
  const r = await fetch(server.url + "/v2/parse", { method: "POST", headers: { authorization: "Bearer k" }, body: form })
  console.log(size, r.status, await r.text())
}
await server.close()
