/**
 * The one policy for database failures. A repository answers `SqlError` (and `ParseError` when a
 * row does not decode); the service calling it turns both into a defect at its boundary, so that
 * endpoints and pages list only domain errors and a database failure becomes a 500 logged with the
 * request id: `Effect.orDie` when the effect fails with nothing else, `orDieOnStorage` when it
 * also fails with domain errors, which pass. The one exception is a unique constraint that stands
 * for a domain rule (an email taken, a slug in use): the service maps that violation to its domain
 * error with `onUniqueViolation`, and every other failure still becomes a defect. Writes a feature
 * makes inside its caller's transaction (Persons/PersonWrites.ts) leave `SqlError` to that caller,
 * which applies this policy. A request that could get no connection of PostgreSQL's pool in time
 * (`isPoolTimeout`) answers 503 instead of 500: the service is busy, not broken.
 */
import * as SqlError from "@effect/sql/SqlError"
import * as Cause from "effect/Cause"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as ParseResult from "effect/ParseResult"
/** A UNIQUE or PRIMARY KEY constraint refused the write (e.g. two concurrent creates of one email). */
export const isUniqueViolation = (error: SqlError.SqlError): boolean => {
  const cause = error.cause as { readonly code?: unknown } | null | undefined
  const code = typeof cause === "object" && cause !== null ? cause.code : undefined
  // SQLite's extended codes; PostgreSQL's SQLSTATE unique_violation
  return code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY" || code === "23505"
}

type StorageError = SqlError.SqlError | ParseResult.ParseError

const isStorageError = (error: unknown): error is StorageError =>
  error instanceof SqlError.SqlError || ParseResult.isParseError(error)

/**
 * Maps a unique violation to the given domain error. Any other database failure, or a row that
 * does not decode, is a defect: it becomes a 500 that is logged with the request id.
 */
export const onUniqueViolation = <E>(toError: () => E) =>
<A, E1, R>(effect: Effect.Effect<A, E1, R>): Effect.Effect<A, Exclude<E1, StorageError> | E, R> =>
  Effect.catchIf(
    effect,
    isStorageError,
    (error) => error instanceof SqlError.SqlError && isUniqueViolation(error) ? Effect.fail(toError()) : Effect.die(error)
  ) as Effect.Effect<A, Exclude<E1, StorageError> | E, R>

/** A database failure or a row that does not decode becomes a defect; domain errors pass. */
export const orDieOnStorage = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, Exclude<E, StorageError>, R> =>
  Effect.catchIf(effect, isStorageError, Effect.die) as Effect.Effect<A, Exclude<E, StorageError>, R>

/**
 * No connection of PostgreSQL's pool came free, nor could a new one connect, within
 * `DATABASE_ACQUIRE_TIMEOUT` (pg's messages for both): the instance is overloaded for now, and the
 * request answers 503 `unavailable` (Http/ErrorMapping.ts) rather than waiting for ever.
 */
export const isPoolTimeout = (error: unknown): boolean => {
  if (!(error instanceof SqlError.SqlError) || !(error.cause instanceof Error)) return false
  const message = error.cause.message
  return message === "timeout exceeded when trying to connect" || message === "Connection terminated due to connection timeout"
}

/** Whether any failure or defect of `cause` is one `is` recognizes. */
const causeHas = (is: (error: unknown) => boolean) => (cause: Cause.Cause<unknown>): boolean =>
  Chunk.some(Chunk.appendAll(Cause.defects(cause), Cause.failures(cause)), is)

/** Whether a request failed for want of a database connection (`isPoolTimeout`), as a failure or a defect. */
export const poolTimedOut = causeHas(isPoolTimeout)

/** The log line of a request answered 503 for want of a database connection. */
export const POOL_BUSY = "No database connection came free in time (DATABASE_POOL_SIZE, DATABASE_ACQUIRE_TIMEOUT): answered 503"

/**
 * SQLSTATEs and socket errors of a database that went away under the request (a PostgreSQL
 * restart, failover or network cut, directly or through PgBouncer): not a bug of the request, and
 * gone once the database answers again (CONTRACT §15). 57P01-57P03: the server shutting down or
 * starting; 25P03 and 57P05: the server ended a session left idle (in a transaction: an instance
 * that hung; the request's work was rolled back); class 08: the connection failed or was lost;
 * 08P01 is also what PgBouncer answers when its server connection crashed.
 */
const CONNECTION_LOST_CODES = new Set([
  "57P01", "57P02", "57P03", "57P05", "25P03", "08000", "08001", "08003", "08004", "08006", "08P01",
  "ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "EHOSTUNREACH"
])

/** What node-postgres says of a connection that ended or broke under it (it sets no code). */
const CONNECTION_LOST_MESSAGES = [
  // also "Connection terminated unexpectedly" (a pool timeout's own words are told apart first)
  "Connection terminated",
  "Client has encountered a connection error and is not queryable",
  "server closed the connection unexpectedly"
]

/** Whether `error` is a statement that failed because the database connection was lost or refused. */
export const isConnectionLost = (error: unknown): boolean => {
  if (!(error instanceof SqlError.SqlError) || !(error.cause instanceof Error)) return false
  const code = (error.cause as { readonly code?: unknown }).code
  if (typeof code === "string" && CONNECTION_LOST_CODES.has(code)) return true
  const message = error.cause.message
  return CONNECTION_LOST_MESSAGES.some((lost) => message.startsWith(lost))
}

/** Whether a request failed because its database was unreachable (`isConnectionLost`), as a failure or a defect. */
export const databaseLost = causeHas(isConnectionLost)

/** The log line of a request answered 503 because its database connection was lost or refused. */
export const DATABASE_LOST = "The database connection was lost or refused (is the database restarting?): answered 503"
