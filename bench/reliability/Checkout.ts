/**
 * Extracts an older commit into a directory the reliability scripts can serve with `--root`, to
 * measure "before" against "after" with the same harness. `git archive` (no worktree, nothing in
 * the shared index); node_modules is this checkout's, except the workspace packages (@strata/*,
 * strata), which point at the extracted ones so the old server runs its own code throughout.
 *
 *   node bench/reliability/Checkout.ts <commit> <dir>
 */
import { execFileSync } from "node:child_process"
import { existsSync, lstatSync, mkdirSync, readdirSync, realpathSync, symlinkSync } from "node:fs"
import { join, relative } from "node:path"
import { repoRoot } from "./ServerProcess.ts"

const [commit, dir] = process.argv.slice(2)
if (commit === undefined || dir === undefined) throw new Error("usage: Checkout.ts <commit> <dir>")
if (existsSync(dir)) throw new Error(`${dir} exists; remove it or pick another`)
mkdirSync(dir, { recursive: true })
const archive = execFileSync("git", ["archive", "--format=tar", commit], { cwd: repoRoot, maxBuffer: 1 << 30 })
execFileSync("tar", ["-x", "-C", dir], { input: archive })
const modules = join(dir, "node_modules")
const packages = join(repoRoot, "packages")
/** Links `name` (in node_modules) to this checkout's module, or to the extracted package when it is a workspace one. */
const link = (name: string) => {
  const real = realpathSync(join(repoRoot, "node_modules", name))
  const target = real.startsWith(`${packages}/`) ? join(dir, relative(repoRoot, real)) : join(repoRoot, "node_modules", name)
  symlinkSync(target, join(modules, name))
}
mkdirSync(modules, { recursive: true })
for (const name of readdirSync(join(repoRoot, "node_modules"))) {
  if (name.startsWith("@") && lstatSync(join(repoRoot, "node_modules", name)).isDirectory()) {
    mkdirSync(join(modules, name))
    for (const inner of readdirSync(join(repoRoot, "node_modules", name))) link(`${name}/${inner}`)
  } else if (name !== ".bin") link(name)
}
for (const name of readdirSync(join(dir, "packages"))) {
  if (!existsSync(join(modules, "@strata", name))) symlinkSync(join(dir, "packages", name), join(modules, "@strata", name))
}
process.stdout.write(`${commit} extracted to ${dir}\n`)
