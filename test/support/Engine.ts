/**
 * The engine the suite runs on (test/support/engine-setup.ts): on PostgreSQL, every test server
 * gets a database of its own, copied from the migrated template, named in `DATABASE_URL`.
 */
import { execFileSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import { types } from "../../src/Db/Postgres.js"

export const TEMPLATE_DATABASE = "convene_template"

/** `postgres://postgres@127.0.0.1:<port>` of the run's server, when the suite runs on PostgreSQL. */
export const testPostgres = process.env["CONVENE_TEST_PG"]

export const onPostgres = testPostgres !== undefined

/**
 * `postgres://postgres@127.0.0.1:<port>` of PgBouncer in front of it, in the projects that go
 * through one (`CONVENE_TEST_POOLER=pgbouncer`, vitest.config.ts, pgbouncer-setup.ts): their test
 * servers reach their databases there. The run's other projects reach PostgreSQL directly.
 */
const pooled = process.env["CONVENE_TEST_POOLER"] === "pgbouncer"
if (pooled && process.env["CONVENE_TEST_PGBOUNCER"] === undefined) {
  throw new Error("CONVENE_TEST_POOLER=pgbouncer, but no PgBouncer was started (test/support/pgbouncer-setup.ts)")
}
export const testPgBouncer = pooled ? process.env["CONVENE_TEST_PGBOUNCER"] : undefined

export const viaPgBouncer = testPgBouncer !== undefined

let databases = 0

/**
 * A fresh database for one test server (made on the server itself, named through PgBouncer when
 * the run goes through it), copied from the migrated template (a copy takes tens of
 * milliseconds; migrating an empty database takes far longer). Synchronous, with `psql`, so the
 * test environment stays a plain map of variables.
 */
export const testDatabaseUrl = (): string => {
  if (testPostgres === undefined) throw new Error("the suite runs on SQLite")
  // process ids come round again over a run (psql is a process per database): a random part too
  const name = `t_${process.pid}_${++databases}_${randomBytes(4).toString("hex")}`
  execFileSync("psql", [`${testPostgres}/postgres`, "-qAt", "-v", "ON_ERROR_STOP=1", "-c", `CREATE DATABASE ${name} TEMPLATE ${TEMPLATE_DATABASE}`], {
    stdio: ["ignore", "ignore", "pipe"]
  })
  return `${testPgBouncer ?? testPostgres}/${name}`
}

/** A test server's database variables on PostgreSQL: a fresh database, through PgBouncer in transaction mode if the run goes through it. */
export const testDatabaseVariables = (): Record<string, string> =>
  viaPgBouncer ? { DATABASE_URL: testDatabaseUrl(), DATABASE_POOL_MODE: "transaction" } : { DATABASE_URL: testDatabaseUrl() }

/** The variables that name a test server's database, for a CLI or a second process on it. */
export interface DatabaseEnv {
  readonly DATABASE_PATH: string
  readonly DATABASE_URL?: string
}

/** The database variables of a test environment (`testEnvironment`). */
export const databaseEnvOf = (env: Record<string, string>): DatabaseEnv =>
  env["DATABASE_URL"] === undefined
    ? { DATABASE_PATH: env["DATABASE_PATH"]! }
    : { DATABASE_PATH: env["DATABASE_PATH"]!, DATABASE_URL: env["DATABASE_URL"] }

/** A query on a test database: common SQL with `?` placeholders, or `pgText` instead on PostgreSQL. */
export type Query = <A = Record<string, unknown>>(text: string, params?: ReadonlyArray<unknown>, pgText?: string) => Promise<ReadonlyArray<A>>

/**
 * Runs `use` with one connection to a test database, whichever the engine, for tests that look
 * under the API (what is stored, what the outbox holds) or damage it on purpose. Numbers come back
 * as numbers on both engines.
 */
export const withDatabase = async <A>(env: DatabaseEnv, use: (query: Query) => Promise<A>): Promise<A> => {
  if (env.DATABASE_URL === undefined) {
    const { default: Database } = await import("better-sqlite3")
    const db = new Database(env.DATABASE_PATH, { fileMustExist: true })
    try {
      return await use(async <R>(text: string, params: ReadonlyArray<unknown> = []) => {
        const statement = db.prepare(text)
        return (statement.reader ? statement.all(...params) : (statement.run(...params), [])) as ReadonlyArray<R>
      })
    } finally {
      db.close()
    }
  }
  const { default: pg } = await import("pg")
  const client = new pg.Client({
    connectionString: env.DATABASE_URL,
    types
  })
  await client.connect()
  try {
    return await use(async <R>(text: string, params: ReadonlyArray<unknown> = [], pgText?: string) => {
      // `?` placeholders become $1, $2, … (test statements hold no `?` in string literals)
      let n = 0
      const statement = (pgText ?? text).replace(/\?/g, () => `$${++n}`)
      return (await client.query(statement, [...params])).rows as ReadonlyArray<R>
    })
  } finally {
    await client.end()
  }
}

/** A connection held open for many queries (`withDatabase` opens one per call); close it when done. */
export const openDatabase = (env: DatabaseEnv): Promise<{ readonly query: Query; readonly close: () => Promise<void> }> =>
  new Promise((resolve, reject) => {
    let release: () => void = () => {}
    const closed = new Promise<void>((r) => (release = r))
    const done = withDatabase(env, (query) => {
      resolve({ query, close: async () => {
        release()
        await done
      } })
      return closed
    })
    done.catch(reject)
  })

/** One query on a test database (`withDatabase`). */
export const queryDatabase = <A = Record<string, unknown>>(
  env: DatabaseEnv,
  text: string,
  params: ReadonlyArray<unknown> = [],
  pgText?: string
): Promise<ReadonlyArray<A>> => withDatabase(env, (query) => query<A>(text, params, pgText))
