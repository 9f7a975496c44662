/**
 * The page cache end to end on Postgres (STRATA_DATABASE_URL, a throwaway server from Debian's
 * binaries, set before anything in this file reads the environment): see CacheSuite.ts.
 */
import { afterAll, beforeAll } from "vitest"
import { startPostgres, type TempPostgres } from "../../store/test/support/TempPostgres.ts"
import { cacheSuite } from "./CacheSuite.ts"

let postgres: TempPostgres | undefined
let url: string | undefined

beforeAll(async () => {
  postgres = await startPostgres()
  url = postgres.createDatabase("cache")
  process.env.STRATA_DATABASE_URL = url
}, 120_000)

afterAll(() => {
  delete process.env.STRATA_DATABASE_URL
  postgres?.stop()
})

cacheSuite("pg", () => url)
