/**
 * @strata/store: the backends of core's `Store` contract. Embedded SQLite (`node:sqlite`) is the
 * default; Postgres (`@effect/sql-pg`) when STRATA_DATABASE_URL is set, so replicas share one state.
 */
export {
  defaultCacheMaxBytes,
  layerConfig,
  layerConfigIn,
  layerPg,
  layerSqlite,
  type PgStoreOptions,
  type RateLimits,
  type RecordKeyOptions,
  type SqliteStoreOptions,
  sqliteFileIn,
  storeConfig,
  type StoreServices
} from "./StoreLayers.ts"
export { type SqlStoreOptions } from "./SqlStore.ts"
export { type Migration, migrations } from "./Migrations.ts"
export { importedKeyId, sha256Hex } from "./KeyFormat.ts"
export { makeRateLimiterStore } from "./SqlRateLimiterStore.ts"
