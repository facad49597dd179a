// The suite's second pass (CONTRACT §15: every behaviour the same on both engines): the whole
// suite again on PostgreSQL (CONVENE_TEST_ENGINE=postgres, test/support/engine-setup.ts), then a
// few files through PgBouncer (below). Where PostgreSQL or PgBouncer is not installed, it says so
// and skips; in CI (CONVENE_CI=1) it fails instead. Given files (`npm run test:pg -- <files>`), it
// runs those alone.
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
if (run.status !== 0 || process.argv.length > 2) process.exit(run.status ?? 1)

// Then the PostgreSQL-specific files that a pooler could break, through PgBouncer in transaction
// mode (CONTRACT §15, DATABASE_POOL_MODE=transaction; test/support/PgBouncer.ts): several instances
// on one database and their outbox, the pool under pressure, keyed requests whose instance hangs,
// webhooks, the pool's metrics. test/pgbouncer.test.ts (migrations, load, a PostgreSQL restart
// behind PgBouncer) ran in the pass above, with a PgBouncer of its own. Of idempotency-crash, only
// its PostgreSQL test: the others take two minutes and meet nothing a pooler changes.
const POOLED = [
  "test/multi-instance.test.ts",
  "test/pg-pool.test.ts",
  "test/idempotency-crash.test.ts",
  "test/webhooks.test.ts",
  "test/metrics.test.ts"
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
