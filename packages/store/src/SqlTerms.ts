/**
 * Catalog provider terms a team's administrator accepted (`strata catalog accept-terms`), one row
 * per team, provider and terms version (migration 6). Accepting the same version again keeps the
 * first acceptance: who accepted and when is a record, not a setting.
 */
import type { AcceptedTerms, UnknownTeam } from "@strata/core"
import { UnknownTeam as UnknownTeamError } from "@strata/core"
import { Clock, Effect } from "effect"
import type { SqlClient } from "effect/sql"
import { num, unavailable } from "./SqlRows.ts"

interface TermsRow {
  readonly team_id: string
  readonly provider: string
  readonly version: string
  readonly accepted_by: string
  readonly accepted_at: unknown
}

const toTerms = (row: TermsRow): AcceptedTerms => ({
  teamId: row.team_id,
  provider: row.provider,
  version: row.version,
  acceptedBy: row.accepted_by,
  acceptedAt: num(row.accepted_at)
})

export const makeTerms = (sql: SqlClient.SqlClient) => {
  const acceptedTerms = (teamId: string) =>
    sql<TermsRow>`SELECT team_id, provider, version, accepted_by, accepted_at FROM catalog_terms
      WHERE team_id = ${teamId} ORDER BY provider, accepted_at`.pipe(
      Effect.map((rows) => rows.map(toTerms)),
      Effect.mapError(unavailable("acceptedTerms")),
      Effect.withSpan("Store.acceptedTerms")
    )

  const acceptTerms = Effect.fn("Store.acceptTerms")(function*(
    options: { readonly teamId: string; readonly provider: string; readonly version: string; readonly acceptedBy: string }
  ) {
    const now = yield* Clock.currentTimeMillis
    const { acceptedBy, provider, teamId, version } = options
    return yield* sql.withTransaction(Effect.gen(function*() {
      const teams = yield* sql<{ id: string }>`SELECT id FROM teams WHERE id = ${teamId}`
      if (teams.length === 0) return yield* Effect.fail<UnknownTeam>(new UnknownTeamError({ teamId }))
      yield* sql`INSERT INTO catalog_terms (team_id, provider, version, accepted_by, accepted_at)
        VALUES (${teamId}, ${provider}, ${version}, ${acceptedBy}, ${now}) ON CONFLICT (team_id, provider, version) DO NOTHING`
      const rows = yield* sql<TermsRow>`SELECT team_id, provider, version, accepted_by, accepted_at FROM catalog_terms
        WHERE team_id = ${teamId} AND provider = ${provider} AND version = ${version}`
      return toTerms(rows[0])
    })).pipe(Effect.catchTag("SqlError", (error) => Effect.fail(unavailable("acceptTerms")(error))))
  })

  return { acceptedTerms, acceptTerms }
}
