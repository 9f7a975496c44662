/**
 * The page cache end to end on SQLite (the server's data folder): see CacheSuite.ts.
 */
import { cacheSuite } from "./CacheSuite.ts"

cacheSuite("sqlite", () => undefined)
