/**
 * `npm start`: serves /v2 with the full pipeline, configured from the environment. By default as
 * a supervisor that runs this same script as the server and restarts it when it dies
 * (Supervisor.ts); `STRATA_SUPERVISE=0` or `--no-supervise` serves in this one process. The
 * supervisor imports only Node built-ins, so it stays small and starts fast.
 */
import { fileURLToPath } from "node:url"
import { supervise, supervisionFrom } from "./Supervisor.ts"

const run = async (): Promise<number> => {
  const args = process.argv.slice(2)
  const supervision = supervisionFrom(process.env, args)
  if (supervision === "supervise") {
    return supervise({ script: fileURLToPath(import.meta.url), args, execArgv: process.execArgv, env: process.env })
  }
  if (supervision === "child") {
    const { serveSupervised } = await import("./SupervisedChild.ts")
    await serveSupervised()
  } else {
    const { serveFromEnv } = await import("./StartServer.ts")
    await serveFromEnv()
  }
  return 0
}

run().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`strata: the server could not start: ${error instanceof Error ? error.message : String(error)}\n`)
    process.exit(1)
  }
)
