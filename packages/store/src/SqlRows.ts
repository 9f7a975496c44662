/** Small helpers the store's SQL modules share: reading numbers back from either database, and its one error. */
import { StoreError, StoreUnavailable } from "@strata/core"
import type { SqlError } from "effect/sql"

/** A failed statement as the store reports it: unavailable, naming the store method. */
export const unavailable = (operation: string) => (error: SqlError.SqlError) =>
  new StoreError({ reason: new StoreUnavailable({ operation, message: error.message }) })

/** Postgres returns BIGINT columns as bigint or text; SQLite as numbers. */
export const num = (value: unknown): number => Number(value)
export const optionalNum = (value: unknown): number | undefined =>
  value === null || value === undefined ? undefined : Number(value)
