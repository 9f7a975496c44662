/**
 * changeTracking end to end on Postgres (STRATA_DATABASE_URL, a throwaway server from Debian's
 * binaries, set before anything in this file reads the environment): see ChangeTrackingSuite.ts.
 */
import { afterAll, beforeAll } from "vitest"
import { startPostgres, type TempPostgres } from "../../store/test/support/TempPostgres.ts"
import { changeTrackingSuite } from "./ChangeTrackingSuite.ts"

let postgres: TempPostgres | undefined
let url: string | undefined

beforeAll(async () => {
  postgres = await startPostgres()
  url = postgres.createDatabase("changes")
  process.env.STRATA_DATABASE_URL = url
}, 120_000)

afterAll(() => {
  delete process.env.STRATA_DATABASE_URL
  postgres?.stop()
})

changeTrackingSuite("pg", () => url)
