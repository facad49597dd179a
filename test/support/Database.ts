/**
 * The repository tier's database (test/repo/): the service's own SQL layer (src/Db/Sql.ts, its
 * migrations included) over a fresh database on the suite's engine (a SQLite file in a temporary
 * folder, or a copy of the migrated template on PostgreSQL: Engine.ts), with the domain services
 * and their repositories on it (src/Server.ts `ServicesLive`), and no HTTP: tests call services
 * and repositories as the handlers do, with a `Caller` of their own making.
 */
import { Context, Effect, Layer, Option } from "effect"
import { join } from "node:path"
import { AppConfig } from "../../src/Config/AppConfig.js"
import type { Caller } from "../../src/Domain/Caller.js"
import type { Role } from "../../src/Domain/Role.js"
import { LoggingLive } from "../../src/Runtime/Logging.js"
import { Organizations } from "../../src/Organizations/Organizations.js"
import { ServicesLive } from "../../src/Server.js"
import { SqlLive } from "../../src/Db/Sql.js"
import { type DatabaseEnv, databaseEnvOf, type Query, withDatabase } from "./Engine.js"
import { configFrom, temporaryDirectory, testEnvironment } from "./TestServer.js"

export interface TestDatabaseShape {
  readonly databasePath: string
  /** The variables naming it (for a second connection: `withDatabase`). */
  readonly databaseEnv: DatabaseEnv
  /** A new organization, and a caller acting in it with `role` (an API token's caller is an Admin). */
  readonly organization: (slug: string, role?: Role) => Effect.Effect<{ readonly caller: Caller }>
  /** Statements on a connection of their own (Engine.ts `Query`: `?` placeholders, `pgText` on PostgreSQL). */
  readonly query: <A = Record<string, unknown>>(text: string, params?: ReadonlyArray<unknown>, pgText?: string) => Effect.Effect<ReadonlyArray<A>>
}

export class TestDatabase extends Context.Tag("test/TestDatabase")<TestDatabase, TestDatabaseShape>() {}

let callers = 0

/** A caller of `organization` with `role`, as the access middleware makes one. */
export const callerOf = (organization: { readonly id: Caller["organizationId"]; readonly slug: string }, role: Role = "Admin"): Caller => {
  const id = `test-caller-${process.pid}-${++callers}`
  return {
    organizationId: organization.id,
    organizationSlug: organization.slug,
    role,
    actor: { type: "apiKey", id },
    userId: Option.none(),
    callerKey: `apiKey:${id}`
  }
}

/** A fresh database with `services` over it, `env` overriding the test environment. */
const databaseWith = <A, E, R>(env: Record<string, string>, services: Layer.Layer<A | Organizations, E, R>) =>
  Layer.unwrapScoped(Effect.gen(function*() {
    const dir = yield* temporaryDirectory
    const databasePath = join(dir, "convene.db")
    const variables = { ...testEnvironment(databasePath), ...env }
    const config = yield* configFrom(variables)
    const databaseEnv = databaseEnvOf(variables)
    const handle = Layer.effect(
      TestDatabase,
      Effect.gen(function*() {
        const organizations = yield* Organizations
        return {
          databasePath,
          databaseEnv,
          organization: (slug, role = "Admin") =>
            Effect.map(organizations.create({ slug, name: slug }).pipe(Effect.orDie), (created) => ({
              caller: callerOf({ id: created.id, slug }, role)
            })),
          query: (text, params, pgText) =>
            Effect.promise(() => withDatabase(databaseEnv, (query: Query) => query(text, params, pgText)))
        } satisfies TestDatabaseShape
      })
    )
    return handle.pipe(
      Layer.provideMerge(services),
      Layer.provideMerge(SqlLive),
      Layer.provide(LoggingLive),
      Layer.provideMerge(Layer.succeed(AppConfig, config))
    )
  }))

/**
 * A fresh database with every domain service over it (src/Server.ts `ServicesLive`); `env`
 * overrides the test environment (as a test server's does). Nothing is bootstrapped: tests make
 * the organizations they use.
 */
export const testDatabase = (env: Record<string, string> = {}) => databaseWith(env, ServicesLive)

/**
 * A fresh database with no service over it but `Organizations`: for tests of one repository or
 * service (provided over it) under TestClock, where a day's adjustment would wake every other
 * service's timers again and again.
 */
export const bareDatabase = (env: Record<string, string> = {}) => databaseWith(env, Organizations.Default)
