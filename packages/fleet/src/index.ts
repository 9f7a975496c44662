/**
 * @strata/fleet: Strata across many processes and machines on one Postgres: the pg-boss layer of
 * core's `JobQueue`, and corpus runs (what `strata parse --queue` records and `strata worker`
 * drains). It is a package of its own because pg-boss brings node-postgres and its scheduling
 * dependencies, which a single server on SQLite never needs.
 */
export { layer, layerConfig, make, type PgBossQueueOptions } from "./PgBossQueue.ts"
export {
  CorpusRuns,
  layer as runsLayer,
  type Recorded,
  type RunFailure,
  type RunItem,
  type RunProgress,
  RunsError,
  type RunSpec,
  RunsUnavailable
} from "./CorpusRuns.ts"
export { type ParseAnswer, type ParseInput, ParseJob, ParseJobs, parseJobsLayer } from "./ParseJobs.ts"
export {
  defaultQueueAbovePages,
  FLEET_QUEUE,
  fleetQueueSettings,
  makeQueuedParse,
  parseJobKey,
  queuedParseLayer,
  replicaLayer,
  type ReplicaOptions
} from "./Replica.ts"
