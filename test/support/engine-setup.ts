/**
 * Vitest's global setup of the tiers over a database (vitest.config.ts). With
 * `CONVENE_TEST_ENGINE=postgres` (`npm run test:pg`, and the second pass of `npm test` and CI), the
 * tests run on PostgreSQL: one server for the run (test/support/Postgres.ts), a template database
 * migrated once by the service's own migrations, and then a fresh copy of it for every test server
 * or database (`testDatabaseUrl`), as a fresh SQLite file is on the default engine. Without it,
 * nothing starts and the tests run on SQLite. (The slow tier's processes need `dist/` too:
 * build-setup.ts; the `pgbouncer` projects PgBouncer in front of this server: pgbouncer-setup.ts.)
 */
import * as PgMigrator from "@effect/sql-pg/PgMigrator"
import { NodeContext } from "@effect/platform-node"
import { Effect, Exit, Layer, Scope } from "effect"
import { pgMigrationsDirectory } from "../../src/Db/Sql.js"
import { postgresAvailable, postgresServer } from "./Postgres.js"
import { TEMPLATE_DATABASE } from "./Engine.js"

/**
 * What the setup started, shared by the projects of the run (vitest.config.ts), whose global
 * setups all run in Vitest's main process: the first does the work, the others wait for it.
 */
export interface Shared {
  ready?: Promise<void>
  scope?: Scope.CloseableScope
  /** The server's port (for PgBouncer in front of it). */
  port?: number
  closed?: Promise<void>
}
const KEY = Symbol.for("convene/test-engine-setup")
const registry = globalThis as unknown as { [KEY]?: Shared }

/** What the setup started, once it has (the run's PostgreSQL server, and the scope that stops it). */
export const started = async (): Promise<Shared> => {
  await setup()
  return registry[KEY]!
}

const start = async (shared: Shared) => {
  if (process.env["CONVENE_TEST_ENGINE"] !== "postgres") return
  if (!postgresAvailable) throw new Error("CONVENE_TEST_ENGINE=postgres, but PostgreSQL is not installed (apt-get install postgresql)")
  const scope = Effect.runSync(Scope.make())
  shared.scope = scope
  const server = await Effect.runPromise(Scope.extend(postgresServer, scope))
  shared.port = server.port
  const template = await Effect.runPromise(server.createDatabase(TEMPLATE_DATABASE))
  await Effect.runPromise(
    PgMigrator.run({ loader: PgMigrator.fromFileSystem(pgMigrationsDirectory) }).pipe(
      Effect.provide(Layer.merge(server.layer(template), NodeContext.layer)),
      Effect.scoped
    )
  )
  process.env["CONVENE_TEST_PG"] = server.url("").replace(/\/$/, "")
  console.warn(`Tests run on PostgreSQL (port ${server.port}).`)
}

export async function setup() {
  const shared = (registry[KEY] ??= {})
  shared.ready ??= start(shared)
  await shared.ready
}

export async function teardown() {
  const shared = registry[KEY]
  if (shared?.scope === undefined) return
  const scope = shared.scope
  shared.closed ??= Effect.runPromise(Scope.close(scope, Exit.void))
  await shared.closed
}
