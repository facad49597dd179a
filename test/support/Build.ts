/**
 * The build under test. Tests that run the service or the admin CLI as processes of their own (to
 * kill, restart or time them) run what `npm start` and the container run: the bundles of
 * `npm run build` (scripts/build.mjs), made from the sources under test by the suite's global
 * setup (engine-setup.ts) before any test file runs.
 */
import { execFileSync } from "node:child_process"
import { fileURLToPath } from "node:url"

const ROOT = fileURLToPath(new URL("../..", import.meta.url))

export const BUILT_SERVICE = fileURLToPath(new URL("../../dist/src/main.js", import.meta.url))
export const BUILT_CLI = fileURLToPath(new URL("../../dist/src/cli.js", import.meta.url))

/** Builds the sources into `dist/` (about two seconds). */
export const build = (): void => {
  execFileSync(process.execPath, ["scripts/build.mjs", "--quiet"], { cwd: ROOT, stdio: "inherit" })
}
