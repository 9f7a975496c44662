/**
 * The documents a batch run converts: a directory (walked recursively), a glob (Node's own
 * `fs.promises.glob`) or a file, each keeping its path relative to a root so that the output
 * tree mirrors the input tree.
 */
import { glob, readdir, stat } from "node:fs/promises"
import { dirname, extname, join, relative, resolve, sep } from "node:path"

/** The extensions `parse` reads; anything else in a directory or glob is left alone. */
export const SUPPORTED_EXTENSIONS: ReadonlySet<string> = new Set([
  ".pdf", ".docx", ".doc", ".docm", ".odt", ".ods", ".odp", ".rtf", ".xlsx", ".xls", ".xlsm", ".xlsb",
  ".pptx", ".ppt", ".pptm", ".epub", ".csv", ".html", ".htm", ".xhtml"
])

export interface Input {
  readonly absolute: string
  /** Path below the run's root, with `/` separators: the output is `<out>/<relative>.md`. */
  readonly relative: string
}

const GLOB_MAGIC = /[*?[\]{}]/

export const isGlob = (target: string): boolean => GLOB_MAGIC.test(target)

export const isSupported = (path: string): boolean => SUPPORTED_EXTENSIONS.has(extname(path).toLowerCase())

/** The leading directories of a glob before its first wildcard: `docs/**\/*.pdf` -> `docs`. */
export const globBase = (pattern: string): string => {
  const segments = pattern.split("/")
  const fixed: Array<string> = []
  for (const segment of segments.slice(0, -1)) {
    if (GLOB_MAGIC.test(segment)) break
    fixed.push(segment)
  }
  if (fixed.length === 1 && fixed[0] === "") return "/"
  return fixed.length === 0 ? "." : fixed.join("/")
}

/** The deepest directory that holds every one of `directories` (absolute paths). */
export const commonRoot = (directories: ReadonlyArray<string>): string => {
  const split = directories.map((d) => resolve(d).split(sep))
  const first = split[0] ?? [resolve(".")]
  let length = first.length
  for (const parts of split) {
    let i = 0
    while (i < length && i < parts.length && parts[i] === first[i]) i++
    length = i
  }
  return first.slice(0, length).join(sep) || sep
}

const walk = async (directory: string): Promise<Array<string>> => {
  const entries = await readdir(directory, { recursive: true, withFileTypes: true })
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name))
}

const expand = async (pattern: string): Promise<Array<string>> => {
  const files: Array<string> = []
  for await (const entry of glob(pattern, { withFileTypes: true })) {
    if (entry.isFile()) files.push(join(entry.parentPath, entry.name))
  }
  return files
}

/** One target's files (absolute) and the directory they are relative to; a directory or glob keeps supported files only. */
const resolveTarget = async (target: string): Promise<{ root: string; files: Array<string> }> => {
  if (isGlob(target)) {
    return { root: resolve(globBase(target)), files: (await expand(target)).map((f) => resolve(f)).filter(isSupported) }
  }
  const info = await stat(target)
  if (info.isDirectory()) return { root: resolve(target), files: (await walk(resolve(target))).filter(isSupported) }
  // A file named on the command line is converted whatever its extension: the reader sniffs its bytes.
  return { root: dirname(resolve(target)), files: [resolve(target)] }
}

/**
 * Every supported document under `targets`, sorted by relative path, without duplicates and
 * without anything inside `outDir` (which may sit inside an input directory).
 */
export const findInputs = async (targets: ReadonlyArray<string>, outDir: string): Promise<Array<Input>> => {
  const resolved = await Promise.all(targets.map(resolveTarget))
  const root = commonRoot(resolved.map((r) => r.root))
  const out = resolve(outDir) + sep
  const files = new Set(resolved.flatMap((r) => r.files).filter((f) => !f.startsWith(out)))
  return [...files]
    .map((absolute) => ({ absolute, relative: relative(root, absolute).split(sep).join("/") }))
    .sort((a, b) => (a.relative < b.relative ? -1 : a.relative > b.relative ? 1 : 0))
}
