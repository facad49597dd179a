/**
 * The engine the suite runs on (test/support/engine-setup.ts): on PostgreSQL, every test server
 * gets a database of its own, copied from the migrated template, named in `DATABASE_URL`.
 */
import { execFileSync } from "node:child_process"

export const TEMPLATE_DATABASE = "convene_template"

/** `postgres://postgres@127.0.0.1:<port>` of the run's server, when the suite runs on PostgreSQL. */
export const testPostgres = process.env["CONVENE_TEST_PG"]

export const onPostgres = testPostgres !== undefined

let databases = 0

/**
 * A fresh database for one test server, copied from the migrated template (a copy takes tens of
 * milliseconds; migrating an empty database takes far longer). Synchronous, with `psql`, so the
 * test environment stays a plain map of variables.
 */
export const testDatabaseUrl = (): string => {
  if (testPostgres === undefined) throw new Error("the suite runs on SQLite")
  const name = `t_${process.pid}_${++databases}`
  execFileSync("psql", [`${testPostgres}/postgres`, "-qAt", "-v", "ON_ERROR_STOP=1", "-c", `CREATE DATABASE ${name} TEMPLATE ${TEMPLATE_DATABASE}`], {
    stdio: ["ignore", "ignore", "pipe"]
  })
  return `${testPostgres}/${name}`
}
