/** One root config: each package under packages/ is a vitest project named after its folder. */
import { readdirSync, existsSync } from "node:fs"
import { defineConfig } from "vitest/config"

const packages = readdirSync(new URL("./packages/", import.meta.url)).filter((name) =>
  existsSync(new URL(`./packages/${name}/test/`, import.meta.url))
)

export default defineConfig({
  test: {
    projects: packages.map((name) => ({
      test: {
        name,
        root: `./packages/${name}`,
        include: ["test/**/*.test.ts"],
        testTimeout: 60_000,
        hookTimeout: 60_000
      }
    }))
  }
})
