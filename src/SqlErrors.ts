/**
 * The one policy for database failures. A repository answers `SqlError` (and `ParseError` when a
 * row does not decode); the service calling it turns both into a defect at its boundary, so that
 * endpoints and pages list only domain errors and a database failure becomes a 500 logged with the
 * request id: `Effect.orDie` when the effect fails with nothing else, `orDieOnStorage` when it
 * also fails with domain errors, which pass. The one exception is a unique constraint that stands
 * for a domain rule (an email taken, a slug in use): the service maps that violation to its domain
 * error with `onUniqueViolation`, and every other failure still becomes a defect. Writes a feature
 * makes inside its caller's transaction (Persons/PersonWrites.ts) leave `SqlError` to that caller,
 * which applies this policy.
 */
import * as SqlError from "@effect/sql/SqlError"
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
