// The suite's second pass (CONTRACT §15: every behaviour the same on both engines), on PostgreSQL
// (CONVENE_TEST_ENGINE=postgres, test/support/engine-setup.ts): the tiers whose subject is the
// engine's (vitest.config.ts): the `repo` tier, and the `pg` and `pg-alone` projects (test/slow/pg/,
// PostgreSQL's own, and the files of other tiers listed in BOTH_ENGINES); then a few files through PgBouncer
// (below). The `unit`, `api` and other `slow` files run on SQLite only. Where PostgreSQL or
// PgBouncer is not installed, it says so and skips; in CI (CONVENE_CI=1) it fails instead. Given
// files (`npm run test:pg -- <files>`), it runs those alone, on PostgreSQL, whatever their tier.
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
console.log("\nThe repo tier and the pg projects on PostgreSQL:")
const given = process.argv.slice(2)
const run = spawnSync("npx", ["vitest", "run", ...(given.length > 0 ? given : ["--project", "repo", "--project", "pg", "--project", "pg-alone"])], {
  stdio: "inherit",
  env: { ...process.env, CONVENE_TEST_ENGINE: "postgres" }
})
if (run.status !== 0 || process.argv.length > 2) process.exit(run.status ?? 1)

// Then the PostgreSQL-specific files that a pooler could break, through PgBouncer in transaction
// mode (CONTRACT §15, DATABASE_POOL_MODE=transaction; test/support/PgBouncer.ts): several instances
// on one database and their outbox, the pool under pressure, keyed requests whose instance hangs,
// webhooks (the API's, and the pool's fairness in real time), the pool's metrics.
// test/slow/pg/pgbouncer.test.ts (migrations, load, a PostgreSQL restart behind PgBouncer) ran in
// the pass above, with a PgBouncer of its own. Of idempotency-crash, only its PostgreSQL test: the
// others take two minutes and meet nothing a pooler changes. (Files of any tier: given by name,
// each runs in its own project, on PostgreSQL.)
const POOLED = [
  "test/slow/pg/multi-instance.test.ts",
  "test/slow/pg/pg-pool.test.ts",
  "test/slow/idempotency-crash.test.ts",
  "test/api/webhooks.test.ts",
  "test/slow/webhooks-pool.test.ts",
  "test/api/metrics.test.ts"
]
const bouncer = ["/usr/sbin/pgbouncer", "/usr/bin/pgbouncer"].some((path) => existsSync(path))
if (!bouncer) {
  if (process.env.CONVENE_CI === "1") {
    console.error("pgbouncer is not installed: CI must run the PostgreSQL pass through PgBouncer too (apt-get install pgbouncer).")
    process.exit(1)
  }
  console.warn("pgbouncer is not installed: the pass through PgBouncer was skipped (apt-get install pgbouncer, then npm test).")
  process.exit(0)
}
console.log("\nPostgreSQL through PgBouncer in transaction mode:")
const started = Date.now()
const pooled = spawnSync("npx", ["vitest", "run", ...POOLED, "--testNamePattern", "^(?!.*Idempotency-Key across crashes (?!PostgreSQL:))"], {
  stdio: "inherit",
  env: { ...process.env, CONVENE_TEST_ENGINE: "postgres", CONVENE_TEST_POOLER: "pgbouncer" }
})
console.log(`(through PgBouncer: ${Math.round((Date.now() - started) / 1000)} s)`)
process.exit(pooled.status ?? 1)
