/** `npm start`: serves /v2 with the full pipeline, configured from the environment. */
import { serveFromEnv } from "./StartServer.ts"

serveFromEnv().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`strata: the server could not start: ${error instanceof Error ? error.message : String(error)}\n`)
    process.exit(1)
  }
)
