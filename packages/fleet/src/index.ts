/**
 * @strata/fleet: Strata across many processes and machines on one Postgres. The pg-boss layer of
 * core's `JobQueue`. It is a package of its own because pg-boss brings node-postgres and its
 * scheduling dependencies, which a single server on SQLite never needs.
 */
export { layer, layerConfig, make, type PgBossQueueOptions } from "./PgBossQueue.ts"
