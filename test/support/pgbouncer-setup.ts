/**
 * Vitest's global setup of the `pgbouncer` projects (vitest.config.ts, `POOLED`): PgBouncer in
 * transaction mode (PgBouncer.ts) in front of the run's PostgreSQL server (engine-setup.ts, which
 * runs first), started once for the run. Its address goes to the workers in
 * `CONVENE_TEST_PGBOUNCER`; the projects' own `CONVENE_TEST_POOLER=pgbouncer` sends their test
 * servers through it (`DATABASE_POOL_MODE=transaction`, test/support/Engine.ts), while the other
 * projects of the run reach PostgreSQL directly.
 */
import { Effect, Scope } from "effect"
import { started } from "./engine-setup.js"
import { pgbouncer, pgbouncerAvailable } from "./PgBouncer.js"

const KEY = Symbol.for("convene/test-pgbouncer-setup")
const registry = globalThis as unknown as { [KEY]?: Promise<void> }

const start = async () => {
  const shared = await started()
  if (shared.scope === undefined || shared.port === undefined) {
    throw new Error("the pgbouncer projects run on PostgreSQL only (CONVENE_TEST_ENGINE=postgres)")
  }
  if (!pgbouncerAvailable) throw new Error("PgBouncer is not installed (apt-get install pgbouncer)")
  // closed with PostgreSQL, by engine-setup.ts's teardown (a scope closes its last opened first)
  const bouncer = await Effect.runPromise(Scope.extend(pgbouncer(shared.port), shared.scope))
  process.env["CONVENE_TEST_PGBOUNCER"] = bouncer.base
  console.warn(`... and through PgBouncer in transaction mode (port ${bouncer.port}).`)
}

export async function setup() {
  registry[KEY] ??= start()
  await registry[KEY]
}
