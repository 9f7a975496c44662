/**
 * `strata keys ...` and `strata teams ...`: accounts in the state store the server uses (the
 * database STRATA_DATABASE_URL names, else `{STRATA_DATA_DIR}/strata.db`). They work while the
 * server runs: a key made here authenticates at once, a revoked one stops at once.
 */
import { Store, type Team, type TeamSettings } from "@strata/core"
import { layerConfig } from "@strata/store"
import { Effect, type Layer, Option } from "effect"
import { parseArgs } from "node:util"
import type { Io } from "./Cli.ts"

export const ACCOUNTS_USAGE = `Accounts (in the server's store: STRATA_DATABASE_URL, else STRATA_DATA_DIR/strata.db):
  strata keys create --team <team>     a new key for the team, printed once (the store keeps its hash)
  strata keys revoke <key id>          the key stops working at once
  strata keys list --team <team>
  strata teams set <team> [--credits N|none] [--rate-limit R|none] [--concurrency C|none]
                          [--zdr on|off] [--catalog on|off] [--audit <sink>|none]
                          creates the team or changes the settings given (none: no limit);
                          --rate-limit is requests per minute; --audit is stdout, a .jsonl file or an https:// URL
  strata teams show <team>
  strata teams list`

const flags = {
  team: { type: "string" },
  credits: { type: "string" },
  "rate-limit": { type: "string" },
  concurrency: { type: "string" },
  zdr: { type: "string" },
  catalog: { type: "string" },
  audit: { type: "string" },
  json: { type: "boolean" }
} as const

/** A bad command line: printed with the usage, exit code 2. */
class Usage {
  readonly message: string
  constructor(message: string) {
    this.message = message
  }
}

const limit = (name: string, value: string | undefined): number | null | undefined => {
  if (value === undefined) return undefined
  if (value === "none") return null
  const n = Number(value)
  if (!Number.isSafeInteger(n) || n < 0) throw new Usage(`--${name} takes a whole number of at least 0, or none`)
  return n
}

const onOff = (name: string, value: string | undefined): boolean | undefined => {
  if (value === undefined) return undefined
  if (value === "on" || value === "off") return value === "on"
  throw new Usage(`--${name} takes on or off`)
}

/** The settings `teams set` was given; a flag left out keeps its value. */
export const settingsFromFlags = (values: Record<string, unknown>): TeamSettings => {
  const audit = values.audit as string | undefined
  const settings: { -readonly [K in keyof TeamSettings]: TeamSettings[K] } = {}
  const credits = limit("credits", values.credits as string | undefined)
  if (credits !== undefined) settings.credits = credits
  const rateLimit = limit("rate-limit", values["rate-limit"] as string | undefined)
  if (rateLimit !== undefined) settings.rateLimit = rateLimit
  const concurrency = limit("concurrency", values.concurrency as string | undefined)
  if (concurrency !== undefined) settings.concurrency = concurrency
  const zdr = onOff("zdr", values.zdr as string | undefined)
  if (zdr !== undefined) settings.zdr = zdr
  const catalog = onOff("catalog", values.catalog as string | undefined)
  if (catalog !== undefined) settings.catalog = catalog
  if (audit !== undefined) {
    if (audit.trim() === "") throw new Usage("--audit takes stdout, a .jsonl file path, an https:// URL, or none")
    settings.auditSink = audit === "none" ? null : audit
  }
  return settings
}

const showLimit = (value: number | undefined) => value === undefined ? "none" : String(value)

const describeTeam = (team: Team): string =>
  [
    `team ${team.id}`,
    `  credits      ${showLimit(team.credits)}`,
    `  rate limit   ${team.rateLimit === undefined ? "none" : `${team.rateLimit}/min`}`,
    `  concurrency  ${showLimit(team.concurrency)}`,
    `  zdr          ${team.zdr ? "on" : "off"}`,
    `  catalog      ${team.catalog ? "on" : "off"}`,
    `  audit        ${team.auditSink ?? "none"}`
  ].join("\n")

/** What one accounts command does with the store; resolves to what to print. */
const command = (
  group: string,
  action: string | undefined,
  args: ReadonlyArray<string>,
  values: Record<string, unknown>
): Effect.Effect<string, unknown, Store> =>
  Effect.gen(function*() {
    const store = yield* Store
    const json = values.json === true
    const team = values.team as string | undefined
    if (group === "keys" && action === "create") {
      if (team === undefined) return yield* Effect.fail(new Usage("keys create needs --team <team>"))
      if (Option.isNone(yield* store.getTeam(team))) {
        return yield* Effect.fail(new Error(`No team "${team}"; create it first with: strata teams set ${team}`))
      }
      const created = yield* store.createKey(team)
      return json
        ? JSON.stringify(created)
        : `${created.key}\n\nKey ${created.id} for team ${team}. This is the only time the key is shown: keep it now.`
    }
    if (group === "keys" && action === "revoke") {
      const id = args[0]
      if (id === undefined) return yield* Effect.fail(new Usage("keys revoke needs the key id (key_...)"))
      if (!(yield* store.revokeKey(id))) return yield* Effect.fail(new Error(`No key "${id}"`))
      return json ? JSON.stringify({ id, revoked: true }) : `Key ${id} revoked.`
    }
    if (group === "keys" && action === "list") {
      if (team === undefined) return yield* Effect.fail(new Usage("keys list needs --team <team>"))
      const keys = yield* store.listKeys(team)
      return json
        ? JSON.stringify(keys)
        : keys.map((key) =>
          `${key.id}  created ${new Date(key.createdAt).toISOString()}${
            key.revokedAt === undefined ? "" : `  revoked ${new Date(key.revokedAt).toISOString()}`
          }`
        ).join("\n") || `No keys for team ${team}.`
    }
    if (group === "teams" && action === "set") {
      const id = args[0]
      if (id === undefined) return yield* Effect.fail(new Usage("teams set needs the team's name"))
      const saved = yield* store.setTeam(id, yield* Effect.try({ try: () => settingsFromFlags(values), catch: (error) => error }))
      return json ? JSON.stringify(saved) : describeTeam(saved)
    }
    if (group === "teams" && action === "show") {
      const id = args[0]
      if (id === undefined) return yield* Effect.fail(new Usage("teams show needs the team's name"))
      const found = yield* store.getTeam(id)
      if (Option.isNone(found)) return yield* Effect.fail(new Error(`No team "${id}"`))
      return json ? JSON.stringify(found.value) : describeTeam(found.value)
    }
    if (group === "teams" && action === "list") {
      const teams = yield* store.listTeams
      return json ? JSON.stringify(teams) : teams.map(describeTeam).join("\n")
    }
    return yield* Effect.fail(new Usage(`Unknown command: strata ${group} ${action ?? ""}`.trim()))
  })

/**
 * Runs `strata keys ...` or `strata teams ...` (argv without the program name); resolves to the
 * exit code: 0 done, 1 refused or failed, 2 usage error. `store` is for tests.
 */
export const accounts = async (
  argv: ReadonlyArray<string>,
  io: Io,
  store: Layer.Layer<Store, unknown> = layerConfig
): Promise<number> => {
  let parsed
  try {
    parsed = parseArgs({ args: [...argv], options: flags, allowPositionals: true, strict: true })
  } catch (error) {
    io.err(`${(error as Error).message}\n\n${ACCOUNTS_USAGE}`)
    return 2
  }
  const [group, action, ...args] = parsed.positionals
  const result = await Effect.runPromise(
    Effect.result(command(group!, action, args, parsed.values).pipe(Effect.provide(store)))
  )
  if (result._tag === "Success") {
    io.out(result.success)
    return 0
  }
  const error = result.failure
  if (error instanceof Usage) {
    io.err(`strata: ${error.message}\n\n${ACCOUNTS_USAGE}`)
    return 2
  }
  io.err(`strata: ${(error as { message?: string }).message ?? String(error)}`)
  return 1
}
