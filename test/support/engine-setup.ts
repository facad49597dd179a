/**
 * Vitest's global setup. First, the sources are built (`dist/`, Build.ts): the tests that start the
 * service or the CLI as processes run the build of the code under test. With `CONVENE_TEST_ENGINE=postgres` (`npm run test:pg`, and CI's second
 * pass), the whole suite runs on PostgreSQL: one server for the run (test/support/Postgres.ts), a
 * template database migrated once by the service's own migrations, and then a fresh copy of it for
 * every test server (`testDatabaseUrl`), as a fresh SQLite file is on the default engine. Without
 * it, nothing starts and the suite runs on SQLite.
 */
import * as PgMigrator from "@effect/sql-pg/PgMigrator"
import { NodeContext } from "@effect/platform-node"
import { Effect, Exit, Layer, Scope } from "effect"
import { pgMigrationsDirectory } from "../../src/Sql.js"
import { postgresAvailable, postgresServer } from "./Postgres.js"
import { build } from "./Build.js"
import { TEMPLATE_DATABASE } from "./Engine.js"

let scope: Scope.CloseableScope | undefined

export async function setup() {
  build()
  if (process.env["CONVENE_TEST_ENGINE"] !== "postgres") return
  if (!postgresAvailable) throw new Error("CONVENE_TEST_ENGINE=postgres, but PostgreSQL is not installed (apt-get install postgresql)")
  scope = Effect.runSync(Scope.make())
  const server = await Effect.runPromise(Scope.extend(postgresServer, scope))
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

export async function teardown() {
  if (scope !== undefined) await Effect.runPromise(Scope.close(scope, Exit.void))
}
