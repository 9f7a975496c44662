/**
 * The real server as a child process, as `npm start` runs it but unsupervised (STRATA_SUPERVISE=0,
 * so a death is seen, not papered over), on a loopback port with a throwaway data dir. `root`
 * picks the checkout whose packages/http/src/bin.ts is served, so the same harness measures an
 * older commit (see Checkout.ts). RSS is summed over the whole process tree: reader processes and
 * worker threads' memory count against the server.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { createWriteStream, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"

export const repoRoot = resolve(import.meta.dirname, "../..")
export const apiKey = "fc-reliability-bench"

export const freePort = (): Promise<number> =>
  new Promise((done, fail) => {
    const server = createServer()
    server.once("error", fail)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(() => done(typeof address === "object" && address !== null ? address.port : 0))
    })
  })

/** The pid and every descendant (threads' `children` files list child processes). */
export const processTree = (pid: number): Array<number> => {
  const out: Array<number> = []
  const visit = (p: number) => {
    out.push(p)
    let tasks: Array<string> = []
    try {
      tasks = readdirSync(`/proc/${p}/task`)
    } catch {
      return
    }
    for (const task of tasks) {
      let children = ""
      try {
        children = readFileSync(`/proc/${p}/task/${task}/children`, "utf8")
      } catch {
        continue
      }
      for (const child of children.split(" ").filter((s) => s.trim() !== "")) visit(Number(child))
    }
  }
  visit(pid)
  return out
}

/** One process's VmRSS in bytes; 0 when it is gone. */
const processRss = (pid: number): number => {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))
    return match === null ? 0 : Number(match[1]) * 1024
  } catch {
    return 0 // gone between listing and reading
  }
}

/** VmRSS in bytes summed over the tree; 0 when the process is gone. */
export const treeRss = (pid: number): number => rssParts(pid).total

/** The tree's RSS split: the server process itself, and its children (reader processes, Chromium). */
export const rssParts = (pid: number): { readonly server: number; readonly children: number; readonly total: number } => {
  const [root, ...rest] = processTree(pid)
  const server = root === undefined ? 0 : processRss(root)
  const children = rest.reduce((sum, p) => sum + processRss(p), 0)
  return { server, children, total: server + children }
}

export interface ServerOptions {
  /** Checkout served (default: this repository). */
  readonly root?: string
  readonly env?: Record<string, string>
  /** Where the server's stdout and stderr go. */
  readonly logFile: string
}

export class ServerProcess {
  child: ChildProcess | undefined
  port = 0
  starts = 0
  private dataDir = ""
  private exitNote = ""

  readonly options: ServerOptions

  constructor(options: ServerOptions) {
    this.options = options
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}`
  }

  get pid(): number {
    return this.child?.pid ?? 0
  }

  alive(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null
  }

  /** How the last process ended ("exit 134", "signal SIGKILL"), empty while it runs. */
  get exit(): string {
    return this.exitNote
  }

  async start(): Promise<void> {
    const root = this.options.root ?? repoRoot
    this.port = await freePort()
    this.dataDir = mkdtempSync(join(tmpdir(), "strata-reliability-data-"))
    this.exitNote = ""
    const log = createWriteStream(this.options.logFile, { flags: "a" })
    log.write(`\n=== start ${new Date().toISOString()} port ${this.port} root ${root}\n`)
    const child = spawn(
      join(repoRoot, "node_modules/.bin/node"),
      ["--conditions=@strata/source", "--max-semi-space-size=8", "--heap-growing-percent=150", "--expose-gc", "packages/http/src/bin.ts"],
      {
        cwd: root,
        env: {
          // What npm start's supervisor gives the server it runs (Supervisor.ts): Node's flags
          // above, and glibc's settings that return freed memory.
          MALLOC_MMAP_THRESHOLD_: "131072",
          MALLOC_TRIM_THRESHOLD_: "1048576",
          ...process.env,
          PORT: String(this.port),
          HOST: "127.0.0.1",
          STRATA_API_KEYS: apiKey,
          STRATA_DATA_DIR: this.dataDir,
          STRATA_ALLOW_PRIVATE_URLS: "true",
          STRATA_SUPERVISE: "0",
          ...this.options.env
        },
        stdio: ["ignore", "pipe", "pipe"]
      }
    )
    child.stdout?.pipe(log, { end: false })
    child.stderr?.pipe(log, { end: false })
    child.on("exit", (code, signal) => {
      this.exitNote = signal !== null ? `signal ${signal}` : `exit ${code}`
      log.write(`=== exited ${this.exitNote} ${new Date().toISOString()}\n`)
    })
    this.child = child
    this.starts++
    const deadline = Date.now() + 60_000
    while (Date.now() < deadline) {
      if (!this.alive()) throw new Error(`the server exited while starting (${this.exitNote}); see ${this.options.logFile}`)
      if (await this.healthy(1000)) return
      await sleep(100)
    }
    throw new Error(`the server did not answer /health within 60 s; see ${this.options.logFile}`)
  }

  async healthy(timeoutMs = 2000): Promise<boolean> {
    try {
      const response = await fetch(`${this.baseUrl}/health`, { signal: AbortSignal.timeout(timeoutMs) })
      await response.arrayBuffer()
      return response.ok
    } catch {
      return false
    }
  }

  /** SIGKILLs the whole tree (a stuck server does not get to clean up) and waits for the exit. */
  async kill(): Promise<void> {
    const child = this.child
    if (child === undefined) return
    if (this.alive()) {
      const tree = processTree(child.pid ?? 0).reverse()
      const exited = new Promise((done) => child.once("exit", done))
      for (const p of tree) {
        try {
          process.kill(p, "SIGKILL")
        } catch {
          // already gone
        }
      }
      await Promise.race([exited, sleep(5000)])
    }
    this.child = undefined
    rmSync(this.dataDir, { recursive: true, force: true })
  }

  /** Stops gracefully (SIGTERM, then SIGKILL after 5 s). */
  async stop(): Promise<void> {
    const child = this.child
    if (child !== undefined && this.alive()) {
      const exited = new Promise((done) => child.once("exit", done))
      child.kill("SIGTERM")
      if ((await Promise.race([exited.then(() => true), sleep(5000).then(() => false)])) === false) return this.kill()
    }
    this.child = undefined
    rmSync(this.dataDir, { recursive: true, force: true })
  }
}

export const sleep = (ms: number) => new Promise<void>((done) => setTimeout(done, ms))

/** POSTs one document to /v2/parse as multipart, with `options` as the JSON part. */
export const postParse = async (
  baseUrl: string,
  document: { readonly bytes: Uint8Array; readonly fileName: string },
  options: Record<string, unknown>,
  signal?: AbortSignal
): Promise<{ status: number; body: unknown; ms: number }> => {
  const form = new FormData()
  form.append("file", new Blob([document.bytes as Uint8Array<ArrayBuffer>]), document.fileName)
  form.append("options", JSON.stringify(options))
  const started = performance.now()
  const response = await fetch(`${baseUrl}/v2/parse`, {
    method: "POST",
    headers: { authorization: `Bearer ${apiKey}` },
    body: form,
    signal
  })
  const text = await response.text()
  let body: unknown = text
  try {
    body = JSON.parse(text)
  } catch {
    // not JSON: kept as text, which is itself a finding
  }
  return { status: response.status, body, ms: performance.now() - started }
}
