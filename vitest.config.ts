/**
 * One root config: each package under packages/ is a vitest project named after its folder.
 *
 * Tests run the packages from source: the `@strata/source` export condition points each package
 * at its `src/index.ts` instead of the built `dist/`. Vite resolves the test files' imports with it;
 * the test processes get it as a flag (worker threads inherit their parent's flags); and node
 * processes a test spawns get it through NODE_OPTIONS.
 */
import { readdirSync, existsSync } from "node:fs"
import { defaultServerConditions } from "vite"
import { defineConfig } from "vitest/config"

const source = "--conditions=@strata/source"

const packages = readdirSync(new URL("./packages/", import.meta.url)).filter((name) =>
  existsSync(new URL(`./packages/${name}/test/`, import.meta.url))
)

export default defineConfig({
  test: {
    projects: packages.map((name) => ({
      ssr: { resolve: { conditions: ["@strata/source", ...defaultServerConditions] } },
      test: {
        name,
        root: `./packages/${name}`,
        include: ["test/**/*.test.ts"],
        testTimeout: 60_000,
        hookTimeout: 60_000,
        execArgv: [source],
        env: { NODE_OPTIONS: [process.env.NODE_OPTIONS, source].filter(Boolean).join(" ") }
      }
    }))
  }
})
