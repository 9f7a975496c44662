/**
 * A throwaway Postgres for the store tests: Debian's `postgresql` binaries (installed by `.ci/run`)
 * run `initdb` in a temp folder and start on a free loopback port, with the unix socket in the same
 * folder; `stop` shuts it down and deletes the folder. Postgres refuses to run as root, so when the
 * tests run as root (CI containers do) the server runs as the `postgres` user, which owns the folder.
 *
 * Durability is off (`fsync=off`, no initdb sync): the database lives for one test file.
 */
import { execFileSync } from "node:child_process"
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"

export interface TempPostgres {
  /** A URL for a database in this server (`postgres` when no name is given). */
  readonly url: (database?: string) => string
  /** Creates a new, empty database and returns its URL. */
  readonly createDatabase: (name: string) => string
  readonly stop: () => void
}

/** The folder holding `initdb` and `pg_ctl`: on PATH, or the newest `/usr/lib/postgresql/<version>/bin`. */
export const findPostgresBin = (): string | undefined => {
  const root = "/usr/lib/postgresql"
  if (existsSync(root)) {
    const versions = readdirSync(root)
      .filter((version) => existsSync(join(root, version, "bin", "initdb")))
      .sort((a, b) => Number(b) - Number(a))
    if (versions.length > 0) return join(root, versions[0], "bin")
  }
  const onPath = (process.env.PATH ?? "").split(":").find((dir) => dir !== "" && existsSync(join(dir, "initdb")))
  return onPath
}

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      server.close(() => resolve(port))
    })
  })

const user = "strata"

export const startPostgres = async (): Promise<TempPostgres> => {
  const bin = findPostgresBin()
  if (bin === undefined) throw new Error("No Postgres binaries: install Debian's postgresql package (apt-get install postgresql)")
  const dir = mkdtempSync(join(tmpdir(), "strata-pg-"))
  const data = join(dir, "data")
  const asRoot = process.getuid?.() === 0
  // As root, every server command runs as `postgres`, which must own the folder.
  const run = (command: string, args: ReadonlyArray<string>) =>
    asRoot
      ? execFileSync("runuser", ["-u", "postgres", "--", join(bin, command), ...args], { stdio: "pipe" })
      : execFileSync(join(bin, command), args, { stdio: "pipe" })
  if (asRoot) {
    const uid = Number(execFileSync("id", ["-u", "postgres"]).toString().trim())
    const gid = Number(execFileSync("id", ["-g", "postgres"]).toString().trim())
    chownSync(dir, uid, gid)
  }
  chmodSync(dir, 0o700)
  const port = await freePort()
  run("initdb", ["-D", data, "-U", user, "-A", "trust", "-E", "UTF8", "--no-sync", "--no-instructions"])
  run("pg_ctl", [
    "-D",
    data,
    "-l",
    join(dir, "postgres.log"),
    "-w",
    "-t",
    "60",
    "-o",
    `-p ${port} -h 127.0.0.1 -k ${dir} -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200`,
    "start"
  ])
  const url = (database = "postgres") => `postgres://${user}@127.0.0.1:${port}/${database}`
  let stopped = false
  const stop = () => {
    if (stopped) return
    stopped = true
    process.off("exit", stop)
    try {
      run("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }
  // A test process that ends without its afterAll (a crash, a timeout) still stops its server.
  process.once("exit", stop)
  return {
    url,
    createDatabase: (name) => {
      execFileSync(join(bin, "createdb"), ["-h", "127.0.0.1", "-p", String(port), "-U", user, name], { stdio: "pipe" })
      return url(name)
    },
    stop
  }
}
