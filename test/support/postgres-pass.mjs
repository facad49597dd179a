// The suite's second pass (CONTRACT §15: every behaviour the same on both engines), on PostgreSQL
// (CONVENE_TEST_ENGINE=postgres, test/support/engine-setup.ts), one Vitest run of the projects whose
// subject is the engine's (vitest.config.ts): `pg` (the `repo` tier, test/slow/pg/, PostgreSQL's
// own, and the files of other tiers listed in BOTH_ENGINES), `pgbouncer` (the files a pooler could
// break, `POOLED`, through PgBouncer in transaction mode: pgbouncer-setup.ts), and their files that
// measure, one at a time, after the others (`pg-alone`, `pgbouncer-alone`). The `unit`, `api` and
// other `slow` files run on SQLite only. Where PostgreSQL or PgBouncer is not installed, it says so
// and skips them; in CI (CONVENE_CI=1) it fails instead. Given files (`npm run test:pg -- <files>`),
// it runs those on PostgreSQL, directly, whatever their tier.
import { spawnSync } from "node:child_process"
import { existsSync, readdirSync } from "node:fs"
import { join } from "node:path"

const ROOT = "/usr/lib/postgresql"
const installed = (existsSync(ROOT) ? readdirSync(ROOT) : []).some((version) =>
  existsSync(join(ROOT, version, "bin", "initdb")) && existsSync(join(ROOT, version, "bin", "postgres")))
const ci = process.env.CONVENE_CI === "1"

if (!installed) {
  if (ci) {
    console.error("PostgreSQL is not installed: CI must run the suite on PostgreSQL too (apt-get install postgresql).")
    process.exit(1)
  }
  console.warn("PostgreSQL is not installed: the suite ran on SQLite only; the PostgreSQL pass was skipped (apt-get install postgresql, then npm test).")
  process.exit(0)
}

const given = process.argv.slice(2)
const bouncer = ["/usr/sbin/pgbouncer", "/usr/bin/pgbouncer"].some((path) => existsSync(path))
if (!bouncer && given.length === 0) {
  if (ci) {
    console.error("pgbouncer is not installed: CI must run the PostgreSQL pass through PgBouncer too (apt-get install pgbouncer).")
    process.exit(1)
  }
  console.warn("pgbouncer is not installed: the files run through PgBouncer are skipped (apt-get install pgbouncer, then npm test).")
}

const projects = given.length > 0
  ? ["fast", "slow", "slow-alone", "pg", "pg-alone"]
  : ["pg", "pg-alone", ...(bouncer ? ["pgbouncer", "pgbouncer-alone"] : [])]
console.log(`\nOn PostgreSQL: ${projects.join(", ")}`)
const run = spawnSync("npx", ["vitest", "run", ...projects.flatMap((project) => ["--project", project]), ...given], {
  stdio: "inherit",
  env: { ...process.env, CONVENE_TEST_ENGINE: "postgres" }
})
process.exit(run.status ?? 1)
