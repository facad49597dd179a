/**
 * Which database failures are the database going away (a restart, a failover, a cut), answered
 * 503 `unavailable` with Retry-After instead of 500 (src/Db/SqlErrors.ts `isConnectionLost`,
 * Http/ErrorMapping.ts): the SQLSTATEs of a server shutting down or starting, of a connection
 * lost or refused (PgBouncer's "server conn crashed?" included), socket errors, and what
 * node-postgres says when a connection ends under it. Anything else stays unexpected.
 */
import { describe, expect, it } from "@effect/vitest"
import * as SqlError from "@effect/sql/SqlError"
import { Cause, FiberId } from "effect"
import { databaseLost, isConnectionLost, isPoolTimeout } from "../../src/Db/SqlErrors.js"

const failure = (message: string, code?: string) =>
  new SqlError.SqlError({ cause: Object.assign(new Error(message), code === undefined ? {} : { code }), message: "Failed to execute statement" })

describe("a lost database connection", () => {
  it("is told by the SQLSTATE of a server shutting down or a connection lost, a socket error, or node-postgres's words", () => {
    for (const [message, code] of [
      ["terminating connection due to administrator command", "57P01"],
      ["the database system is starting up", "57P03"],
      ["server conn crashed?", "08P01"],
      ["connect ECONNREFUSED 127.0.0.1:5432", "ECONNREFUSED"],
      ["read ECONNRESET", "ECONNRESET"],
      ["Connection terminated unexpectedly", undefined],
      ["Client has encountered a connection error and is not queryable", undefined]
    ] as const) {
      expect(isConnectionLost(failure(message, code)), message).toBe(true)
    }
  })

  it("is not a constraint, a syntax error, SQLite's busy file, a pool timeout or another error", () => {
    for (const [message, code] of [
      ["duplicate key value violates unique constraint", "23505"],
      ["syntax error at or near", "42601"],
      ["database is locked", "SQLITE_BUSY"],
      ["timeout exceeded when trying to connect", undefined]
    ] as const) {
      expect(isConnectionLost(failure(message, code)), message).toBe(false)
    }
    expect(isPoolTimeout(failure("timeout exceeded when trying to connect"))).toBe(true)
    expect(isConnectionLost(new Error("Connection terminated unexpectedly"))).toBe(false)
  })

  it("is found in a cause as a failure or a defect", () => {
    const lost = failure("terminating connection due to administrator command", "57P01")
    expect(databaseLost(Cause.fail(lost))).toBe(true)
    expect(databaseLost(Cause.die(lost))).toBe(true)
    expect(databaseLost(Cause.sequential(Cause.interrupt(FiberId.none), Cause.die(lost)))).toBe(true)
    expect(databaseLost(Cause.die(new Error("boom")))).toBe(false)
  })
})
