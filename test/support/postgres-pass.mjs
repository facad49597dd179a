// The suite's second pass (CONTRACT §15: every behaviour the same on both engines): the whole
// suite again on PostgreSQL (CONVENE_TEST_ENGINE=postgres, test/support/engine-setup.ts). Where
// PostgreSQL is not installed, it says so and skips; in CI (CONVENE_CI=1) it fails instead.
import { spawnSync } from "node:child_process"
import { existsSync, readdirSync } from "node:fs"
import { join } from "node:path"

const ROOT = "/usr/lib/postgresql"
const installed = (existsSync(ROOT) ? readdirSync(ROOT) : []).some((version) =>
  existsSync(join(ROOT, version, "bin", "initdb")) && existsSync(join(ROOT, version, "bin", "postgres")))

if (!installed) {
  if (process.env.CONVENE_CI === "1") {
    console.error("PostgreSQL is not installed: CI must run the suite on PostgreSQL too (apt-get install postgresql).")
    process.exit(1)
  }
  console.warn("PostgreSQL is not installed: the suite ran on SQLite only; the PostgreSQL pass was skipped (apt-get install postgresql, then npm test).")
  process.exit(0)
}
console.log("\nThe same suite on PostgreSQL:")
const run = spawnSync("npx", ["vitest", "run", ...process.argv.slice(2)], {
  stdio: "inherit",
  env: { ...process.env, CONVENE_TEST_ENGINE: "postgres" }
})
process.exit(run.status ?? 1)
