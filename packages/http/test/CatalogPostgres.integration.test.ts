/**
 * Catalog calls, terms and `domainTools` through the real server on Postgres (the cases in
 * CatalogCases.ts; a throwaway server from Debian's binaries): the accepted terms the server
 * checks are the rows `strata catalog accept-terms` wrote to that database.
 */
import { afterAll, beforeAll } from "vitest"
import { startPostgres, type TempPostgres } from "../../store/test/support/TempPostgres.ts"
import { catalogCases, startSite, stopSite } from "./CatalogCases.ts"

let postgres: TempPostgres | undefined
const databaseUrlBefore = process.env.STRATA_DATABASE_URL

beforeAll(async () => {
  await startSite()
  postgres = await startPostgres()
  // Before the first server: effect reads the environment once.
  process.env.STRATA_DATABASE_URL = postgres.createDatabase(`catalog_${process.pid}`)
}, 120_000)

afterAll(async () => {
  if (databaseUrlBefore === undefined) delete process.env.STRATA_DATABASE_URL
  else process.env.STRATA_DATABASE_URL = databaseUrlBefore
  await stopSite()
  postgres?.stop()
})

catalogCases("pg")
