/**
 * changeTracking end to end on SQLite (the server's data folder): see ChangeTrackingSuite.ts.
 */
import { changeTrackingSuite } from "./ChangeTrackingSuite.ts"

changeTrackingSuite("sqlite", () => undefined)
