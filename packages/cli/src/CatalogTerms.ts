/**
 * `strata catalog ...`: what an administrator does about catalog providers' terms, in the state
 * store the server uses. The server never accepts terms itself: a provider that declares terms
 * answers 403 THIRD_PARTY_DATA_TERMS_REQUIRED until a person runs `accept-terms` for the team.
 * The built-in providers' terms versions are known here; a provider the server was given by its
 * operator needs `--version` (the one its 403 names in `requiresAction.version`).
 */
import { builtinTerms, Store } from "@strata/core"
import { layerConfig } from "@strata/store"
import { Effect, type Layer, Option } from "effect"
import { userInfo } from "node:os"
import { parseArgs } from "node:util"
import type { Io } from "./Cli.ts"

export const CATALOG_USAGE = `Catalog terms (in the server's store: STRATA_DATABASE_URL, else STRATA_DATA_DIR/strata.db):
  strata catalog accept-terms <provider> --team <team> [--version V] [--by <name>]
                          records that you, an administrator, accept the provider's terms for the team
                          (--version: the terms version, known for the built-in providers; --by: who accepts,
                          default your user name)
  strata catalog terms --team <team>       the terms accepted for the team
  strata catalog providers                 the built-in providers that declare terms`

const flags = {
  team: { type: "string" },
  version: { type: "string" },
  by: { type: "string" },
  json: { type: "boolean" }
} as const

class Usage {
  readonly message: string
  constructor(message: string) {
    this.message = message
  }
}

const currentUser = (): string => {
  try {
    return userInfo().username
  } catch {
    return "unknown"
  }
}

const command = (
  action: string | undefined,
  args: ReadonlyArray<string>,
  values: Record<string, unknown>
): Effect.Effect<string, unknown, Store> =>
  Effect.gen(function*() {
    const json = values.json === true
    const team = values.team as string | undefined
    if (action === "providers") {
      const list = Object.entries(builtinTerms).map(([provider, terms]) => ({ provider, ...terms }))
      return json ? JSON.stringify(list) : list.map((t) => `${t.provider}  terms ${t.version}  ${t.url}\n  ${t.summary}`).join("\n")
    }
    const store = yield* Store
    if (action === "accept-terms") {
      const provider = args[0]
      if (provider === undefined) return yield* Effect.fail(new Usage("accept-terms needs the provider's name"))
      if (team === undefined) return yield* Effect.fail(new Usage("accept-terms needs --team <team>"))
      const version = (values.version as string | undefined) ?? builtinTerms[provider]?.version
      if (version === undefined || version.trim() === "") {
        return yield* Effect.fail(new Usage(`The terms of "${provider}" are not known here: pass --version (its 403 names it in requiresAction.version)`))
      }
      if (Option.isNone(yield* store.getTeam(team))) {
        return yield* Effect.fail(new Error(`No team "${team}"; create it first with: strata teams set ${team}`))
      }
      const by = (values.by as string | undefined) ?? currentUser()
      const accepted = yield* store.acceptTerms({ teamId: team, provider, version, acceptedBy: by })
      return json
        ? JSON.stringify(accepted)
        : `Terms of ${provider} (version ${version}) accepted for team ${team} by ${accepted.acceptedBy} at ${new Date(accepted.acceptedAt).toISOString()}.`
    }
    if (action === "terms") {
      if (team === undefined) return yield* Effect.fail(new Usage("terms needs --team <team>"))
      const list = yield* store.acceptedTerms(team)
      return json
        ? JSON.stringify(list)
        : list.map((t) => `${t.provider}  ${t.version}  accepted by ${t.acceptedBy} at ${new Date(t.acceptedAt).toISOString()}`).join("\n") ||
          `No provider terms accepted for team ${team}.`
    }
    return yield* Effect.fail(new Usage(`Unknown command: strata catalog ${action ?? ""}`.trim()))
  })

/** Runs `strata catalog ...` (argv without the program name); 0 done, 1 failed, 2 usage error. `store` is for tests. */
export const catalogCommand = async (
  argv: ReadonlyArray<string>,
  io: Io,
  store: Layer.Layer<Store, unknown> = layerConfig
): Promise<number> => {
  let parsed
  try {
    parsed = parseArgs({ args: [...argv], options: flags, allowPositionals: true, strict: true })
  } catch (error) {
    io.err(`${(error as Error).message}\n\n${CATALOG_USAGE}`)
    return 2
  }
  const [, action, ...args] = parsed.positionals
  const result = await Effect.runPromise(Effect.result(command(action, args, parsed.values).pipe(Effect.provide(store))))
  if (result._tag === "Success") {
    io.out(result.success)
    return 0
  }
  const error = result.failure
  if (error instanceof Usage) {
    io.err(`strata: ${error.message}\n\n${CATALOG_USAGE}`)
    return 2
  }
  io.err(`strata: ${(error as { message?: string }).message ?? String(error)}`)
  return 1
}
