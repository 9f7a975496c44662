/**
 * Browser profiles (`profile: { name, saveChanges }`): a browser context's storage state
 * (cookies and each origin's localStorage, Playwright's `storageState`) kept per team and name
 * under the data directory, so a later scrape or interact session starts where an earlier one
 * left off.
 *
 * Files are `{dataDir}/profiles/{team hash}/{name hash}.json`: hashed, so any name of 1 to 128
 * characters is a safe file name and one team's profiles never share a folder with another's.
 * Written to a temporary file and renamed, so a reader never sees half a profile; mode 0600,
 * since the cookies in it are credentials. A scrape only reads; an interact session with
 * `saveChanges` writes when it stops (InteractSessions.ts).
 */
import { Effect } from "effect"
import { createHash, randomUUID } from "node:crypto"
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises"
import { join } from "node:path"
import type { BrowserContext } from "playwright-core"

/** Cookies and localStorage of a context, as Playwright reads and restores them. */
export type StorageState = Awaited<ReturnType<BrowserContext["storageState"]>>

/** A profile larger than this is not saved (the session's stop says so): 16 MB of JSON is far past any real site's cookies and storage. */
export const MAX_PROFILE_BYTES = 16 * 2 ** 20

export interface ProfileStore {
  /** The identity of `name` within `team`: two sessions saving to the same key are the same profile. */
  readonly keyOf: (team: string, name: string) => string
  /** The saved state, or undefined when there is none (or it cannot be read: the context then starts empty). */
  readonly load: (team: string, name: string) => Effect.Effect<StorageState | undefined>
  /** Writes the state; a problem (too large, the disk) comes back as a sentence for the caller to pass on. */
  readonly save: (team: string, name: string, state: StorageState) => Effect.Effect<{ readonly saved: true } | { readonly saved: false; readonly problem: string }>
}

const hash = (value: string, length: number): string => createHash("sha256").update(value, "utf8").digest("hex").slice(0, length)

const isStorageState = (value: unknown): value is StorageState =>
  typeof value === "object" && value !== null && Array.isArray((value as StorageState).cookies) && Array.isArray((value as StorageState).origins)

/** Profiles under `{dataDir}/profiles`. */
export const makeProfileStore = (dataDir: string): ProfileStore => {
  const root = join(dataDir, "profiles")
  const folderOf = (team: string) => join(root, hash(team, 16))
  const fileOf = (team: string, name: string) => join(folderOf(team), `${hash(name, 40)}.json`)

  const load = (team: string, name: string) =>
    Effect.promise(() =>
      readFile(fileOf(team, name), "utf8").then((text) => {
        const parsed: unknown = JSON.parse(text)
        return isStorageState(parsed) ? parsed : undefined
      }).catch(() => undefined)
    )

  const save = (team: string, name: string, state: StorageState) =>
    Effect.promise(async () => {
      const text = JSON.stringify(state)
      const bytes = Buffer.byteLength(text, "utf8")
      if (bytes > MAX_PROFILE_BYTES) {
        return { saved: false as const, problem: `The profile "${name}" was not saved: its state is ${Math.ceil(bytes / 2 ** 20)} MB, over the limit of ${MAX_PROFILE_BYTES / 2 ** 20} MB` }
      }
      const file = fileOf(team, name)
      const temporary = `${file}.${randomUUID()}.tmp`
      try {
        await mkdir(folderOf(team), { recursive: true, mode: 0o700 })
        await writeFile(temporary, text, { mode: 0o600 })
        await rename(temporary, file)
        return { saved: true as const }
      } catch (error) {
        await rm(temporary, { force: true }).catch(() => undefined)
        return { saved: false as const, problem: `The profile "${name}" was not saved: ${error instanceof Error ? error.message : String(error)}` }
      }
    })

  return { keyOf: (team, name) => `${hash(team, 16)}/${hash(name, 40)}`, load, save }
}
