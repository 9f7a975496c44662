/**
 * Interact sessions on real Chromium, through core's `Interactions` as the engine's layer
 * provides it: a session's context is closed when it stops, when it is idle too long and when
 * its whole life is over (a page that pings its server every 100 ms falls silent), a saving
 * session writes its profile on expiry as on DELETE, and the profile store keeps teams apart.
 */
import { BrowserEngine, decodeScrapeRequest, type InteractionOwner, Interactions, ProfileTeam } from "@strata/core"
import { Effect, Exit, type Layer, ManagedRuntime } from "effect"
import { execFileSync } from "node:child_process"
import { readdirSync, statSync, writeFileSync } from "node:fs"
import { mkdtemp, readdir } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { layer } from "../src/index.ts"
import { makeProfileStore, MAX_PROFILE_BYTES } from "../src/Profiles.ts"
import { html, serve, type Site } from "./Pages.ts"

let site: Site
const owner: InteractionOwner = { key: "key-1", team: "team-a" }

const pinging = html(`<p id="state"></p><script>
  // Started by a session's code, so the replay's smart wait still finds the network quiet.
  window.startPinging = () => setInterval(() => fetch("/ping").catch(() => undefined), 100)
  document.getElementById("state").textContent = "cookie=" + (document.cookie || "none")
</script>`)

const pings = () => site.hits.filter((hit) => hit === "/ping").length

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Pings stopped: none arrive over half a second. */
const silent = async () => {
  const before = pings()
  await sleep(600)
  return pings() === before
}

const runtimeWith = (dataDir: string, interact: Record<string, number>) =>
  ManagedRuntime.make(layer({ concurrency: 2, policy: { allowPrivate: true }, dataDir, interact: { sweepEveryMs: 100, ...interact } }) as Layer.Layer<Interactions>)

const remember = (runtime: ManagedRuntime.ManagedRuntime<Interactions, never>, scrapeId: string, body: Record<string, unknown>) =>
  runtime.runPromise(Effect.flatMap(decodeScrapeRequest({ url: `${site.url}/ping-page`, ...body }), (request) =>
    Interactions.use((interactions) => interactions.remember(scrapeId, request, owner))))

const execute = (runtime: ManagedRuntime.ManagedRuntime<Interactions, never>, scrapeId: string, code: string) =>
  runtime.runPromise(Effect.exit(Interactions.use((interactions) => interactions.execute(scrapeId, owner, { code, timeoutMs: 5_000 }))))

const outcomeOf = <A, E>(exit: Exit.Exit<A, E>): A => {
  if (Exit.isFailure(exit)) throw new Error(`failed: ${String(exit.cause)}`)
  return exit.value
}

const failureTag = <A, E extends { readonly reason: { readonly _tag: string } }>(exit: Exit.Exit<A, E>) =>
  Exit.isFailure(exit) ? exit.cause.reasons.map((reason) => (reason._tag === "Fail" ? reason.error.reason._tag : reason._tag)).join() : "success"

beforeAll(async () => {
  site = await serve({ "/ping-page": pinging, "/ping": (_q, r) => r.writeHead(204).end() })
})

afterAll(async () => {
  await site?.close()
})

describe("interact sessions", () => {
  it("closes the context on stop, on idle expiry (saving the profile) and at the end of its life", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "strata-sessions-"))
    const runtime = runtimeWith(dataDir, { idleMs: 1_500, ttlMs: 4_000 })
    try {
      // Stop.
      await remember(runtime, "stopped", {})
      expect(outcomeOf(await execute(runtime, "stopped", "startPinging(); return document.title")).result).toBe("Test page")
      expect(await silent()).toBe(false)
      const summary = await runtime.runPromise(Interactions.use((interactions) => interactions.stop("stopped", owner)))
      expect(summary.sessionDurationMs).toBeGreaterThan(0)
      expect(await silent()).toBe(true)
      expect(failureTag(await execute(runtime, "stopped", "return 1"))).toBe("UnknownScrape")

      // Idle: the saving session writes its profile as it expires.
      await remember(runtime, "idle", { profile: { name: "harbour" } })
      expect(outcomeOf(await execute(runtime, "idle", "startPinging(); document.cookie = 'boat=Kestrel; max-age=3600'; return document.cookie")).result).toBe("boat=Kestrel")
      expect(await silent()).toBe(false)
      await sleep(2_200)
      expect(await silent()).toBe(true)
      expect(failureTag(await execute(runtime, "idle", "return 1"))).toBe("UnknownScrape")
      await remember(runtime, "reader", { profile: { name: "harbour", saveChanges: false } })
      expect(outcomeOf(await execute(runtime, "reader", "startPinging(); return document.getElementById('state').textContent")).result).toBe("cookie=boat=Kestrel")

      // Its whole life: used every 300 ms (never idle), still ended 4 s after it opened.
      await remember(runtime, "busy", {})
      expect(outcomeOf(await execute(runtime, "busy", "return 'open'")).result).toBe("open")
      const opened = Date.now()
      let ended: number | undefined
      while (ended === undefined && Date.now() - opened < 10_000) {
        const exit = await execute(runtime, "busy", "return 'open'")
        if (Exit.isFailure(exit)) {
          ended = Date.now()
          expect(failureTag(exit)).toBe("UnknownScrape")
        } else await sleep(300)
      }
      expect(ended).toBeDefined()
      expect(ended! - opened).toBeGreaterThan(3_000)
      expect(ended! - opened).toBeLessThan(7_000)
    } finally {
      await runtime.dispose()
    }
    // Disposing the layer ended the reader's session too.
    expect(await silent()).toBe(true)
  }, 60_000)

  it("reads a scrape's profile from its own team only", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "strata-sessions-"))
    const profiles = makeProfileStore(dataDir)
    const saved = await Effect.runPromise(profiles.save("team-a", "harbour", {
      cookies: [{ name: "boat", value: "Osprey", domain: "127.0.0.1", path: "/", expires: Math.floor(Date.now() / 1000) + 3600, httpOnly: false, secure: false, sameSite: "Lax" }],
      origins: []
    }))
    expect(saved).toEqual({ saved: true })
    const runtime = ManagedRuntime.make(layer({ concurrency: 1, policy: { allowPrivate: true }, dataDir }) as Layer.Layer<BrowserEngine>)
    try {
      const render = (team: string) =>
        runtime.runPromise(BrowserEngine.use((engine) =>
          engine.render({ url: `${site.url}/ping-page`, skipTlsVerification: false, mobile: false, waitFor: 0, actions: [], profile: { name: "harbour" } }, Date.now() + 30_000)
        ).pipe(Effect.map((page) => new TextDecoder().decode(page.body)), Effect.provideService(ProfileTeam, team)))
      expect(await render("team-a")).toContain("cookie=boat=Osprey")
      expect(await render("team-b")).toContain("cookie=none")
    } finally {
      await runtime.dispose()
    }
  }, 60_000)
})

describe("interact sessions under zero data retention", () => {
  it("save no profile when the caller keeps no data, whether it opened the session or only stopped it, and say so", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "strata-sessions-"))
    const runtime = runtimeWith(dataDir, {})
    // The same key and team, after the team turned zero data retention on.
    const keepsNothing: InteractionOwner = { ...owner, zeroDataRetention: true }
    const run = (scrapeId: string, caller: InteractionOwner, code: string) =>
      runtime.runPromise(Interactions.use((interactions) => interactions.execute(scrapeId, caller, { code, timeoutMs: 5_000 })))
    const stop = (scrapeId: string, caller: InteractionOwner) => runtime.runPromise(Interactions.use((interactions) => interactions.stop(scrapeId, caller)))
    try {
      await remember(runtime, "opened-zdr", { profile: { name: "quay" } })
      expect((await run("opened-zdr", keepsNothing, "document.cookie = 'boat=Tern; max-age=3600'; return document.cookie")).result).toBe("boat=Tern")
      // It holds no profile for writing: another saving session of the same profile opens.
      await remember(runtime, "writer", { profile: { name: "quay" } })
      expect((await run("writer", owner, "return 1")).result).toBe("1")
      await stop("writer", keepsNothing)
      const opened = await stop("opened-zdr", owner)
      expect(opened.warning).toContain(`The profile "quay" was not saved: zero data retention`)

      await remember(runtime, "stopped-zdr", { profile: { name: "quay" } })
      expect((await run("stopped-zdr", owner, "document.cookie = 'boat=Heron; max-age=3600'; return 1")).result).toBe("1")
      expect((await stop("stopped-zdr", keepsNothing)).warning).toContain("was not saved: zero data retention")

      // Nothing was written: no profile file, and a reader starts with no cookie.
      expect(await readdir(dataDir, { recursive: true }).then((names) => names.filter((name) => name.endsWith(".json")))).toEqual([])
      expect(await Effect.runPromise(makeProfileStore(dataDir).load("team-a", "quay"))).toBeUndefined()
      // The same session stopped by a caller that keeps data does save (so the test can fail).
      await remember(runtime, "kept", { profile: { name: "quay" } })
      expect((await run("kept", owner, "document.cookie = 'boat=Kestrel; max-age=3600'; return 1")).result).toBe("1")
      expect((await stop("kept", owner)).warning).toBeUndefined()
      expect((await Effect.runPromise(makeProfileStore(dataDir).load("team-a", "quay")))?.cookies.map((c) => c.value)).toEqual(["Kestrel"])
    } finally {
      await runtime.dispose()
    }
  }, 60_000)
})

describe("interact sessions and Chromium", () => {
  it("answers a run after Chromium died with a clear failure, and the next run replays into a new session", async () => {
    const runtime = runtimeWith(await mkdtemp(join(tmpdir(), "strata-sessions-")), {})
    try {
      await remember(runtime, "crashing", {})
      const first = outcomeOf(await execute(runtime, "crashing", "document.title = 'changed'; return document.title"))
      expect(first.result).toBe("changed")
      // Kill Chromium (our own child process, by its id).
      const children = execFileSync("ps", ["-o", "pid=,args=", "--ppid", String(process.pid)]).toString().split("\n")
      const chromium = children.find((line) => /chrom/i.test(line) && !/crashpad/.test(line))
      expect(chromium).toBeDefined()
      process.kill(Number(chromium!.trim().split(/\s+/)[0]), "SIGKILL")
      await sleep(500)
      const failed = outcomeOf(await execute(runtime, "crashing", "return document.title"))
      expect(failed.exitCode).toBe(1)
      expect(failed.stderr).toContain("cannot run code")
      const again = outcomeOf(await execute(runtime, "crashing", "return document.title"))
      expect(again.result).toBe("Test page")
      expect(again.sessionId).not.toBe(first.sessionId)
    } finally {
      await runtime.dispose()
    }
  }, 60_000)

  it("a replay that fails gives its place back: the session limit counts only open sessions", async () => {
    const runtime = runtimeWith(await mkdtemp(join(tmpdir(), "strata-sessions-")), { maxSessions: 1 })
    try {
      // Port 1 is no web server's (refused before Chromium goes there): the replay fails.
      const unreachable = (id: string) =>
        runtime.runPromise(Effect.flatMap(decodeScrapeRequest({ url: "http://127.0.0.1:1/nothing" }), (request) =>
          Interactions.use((interactions) => interactions.remember(id, request, owner))))
      for (const id of ["down-1", "down-2", "down-3"]) {
        await unreachable(id)
        const exit = await execute(runtime, id, "return 1")
        expect(failureTag(exit)).toBe("ReplayFailed")
      }
      await remember(runtime, "up-1", {})
      await remember(runtime, "up-2", {})
      expect(outcomeOf(await execute(runtime, "up-1", "return 1")).result).toBe("1")
      expect(failureTag(await execute(runtime, "up-2", "return 2"))).toBe("TooManySessions")
    } finally {
      await runtime.dispose()
    }
  }, 60_000)

  it("answers an expired scrape as it answers one never seen or another key's: UnknownScrape", async () => {
    const runtime = runtimeWith(await mkdtemp(join(tmpdir(), "strata-sessions-")), { recordTtlMs: 400 })
    try {
      await remember(runtime, "short-lived", {})
      const stranger = await runtime.runPromise(Effect.exit(Interactions.use((interactions) =>
        interactions.execute("short-lived", { key: "key-2", team: "team-a" }, { code: "return 1", timeoutMs: 5_000 }))))
      expect(failureTag(stranger)).toBe("UnknownScrape")
      await sleep(500)
      const expired = await execute(runtime, "short-lived", "return 1")
      const never = await execute(runtime, "never-seen", "return 1")
      expect(failureTag(expired)).toBe("UnknownScrape")
      expect(String(expired)).toBe(String(never).replaceAll("never-seen", "short-lived"))
    } finally {
      await runtime.dispose()
    }
  }, 60_000)

  it("remembers at most maxRecords scrapes, oldest out first, and never one with an open session", async () => {
    const runtime = runtimeWith(await mkdtemp(join(tmpdir(), "strata-sessions-")), { maxRecords: 2 })
    try {
      await remember(runtime, "one", {})
      expect(outcomeOf(await execute(runtime, "one", "return 1")).result).toBe("1")
      await remember(runtime, "two", {})
      await remember(runtime, "three", {})
      expect(failureTag(await execute(runtime, "two", "return 2"))).toBe("UnknownScrape")
      expect(outcomeOf(await execute(runtime, "one", "return 1")).result).toBe("1")
      expect(outcomeOf(await execute(runtime, "three", "return 3")).result).toBe("3")
    } finally {
      await runtime.dispose()
    }
  }, 60_000)
})

describe("the profile store", () => {
  it("names files by hashes under one folder per team, 0600, and refuses what is too large", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "strata-profiles-"))
    const profiles = makeProfileStore(dataDir)
    const state = { cookies: [], origins: [{ origin: "https://example.com", localStorage: [{ name: "k", value: "v" }] }] }
    for (const name of ["../../etc/passwd", "a/b\\c", "ñ ✓", "x".repeat(128)]) {
      expect(await Effect.runPromise(profiles.save("team-a", name, state))).toEqual({ saved: true })
      expect(await Effect.runPromise(profiles.load("team-a", name))).toEqual(state)
      expect(await Effect.runPromise(profiles.load("team-b", name))).toBeUndefined()
    }
    const teams = readdirSync(join(dataDir, "profiles"))
    expect(teams).toHaveLength(1)
    const files = await readdir(join(dataDir, "profiles", teams[0]))
    expect(files).toHaveLength(4)
    for (const file of files) {
      expect(file).toMatch(/^[0-9a-f]{40}\.json$/)
      expect(statSync(join(dataDir, "profiles", teams[0], file)).mode & 0o777).toBe(0o600)
    }
    // A file that is not a profile reads as none.
    writeFileSync(join(dataDir, "profiles", teams[0], files[0]), "{not json")
    const broken = await Promise.all(["../../etc/passwd", "a/b\\c", "ñ ✓", "x".repeat(128)].map((name) => Effect.runPromise(profiles.load("team-a", name))))
    expect(broken.filter((loaded) => loaded === undefined)).toHaveLength(1)

    const huge = { cookies: [], origins: [{ origin: "https://example.com", localStorage: [{ name: "k", value: "v".repeat(MAX_PROFILE_BYTES) }] }] }
    const refused = await Effect.runPromise(profiles.save("team-a", "huge", huge))
    expect(refused.saved).toBe(false)
    expect(refused.saved ? "" : refused.problem).toContain("over the limit of 16 MB")
    expect(await Effect.runPromise(profiles.load("team-a", "huge"))).toBeUndefined()
  })
})
