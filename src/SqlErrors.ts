import * as SqlError from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"
import * as ParseResult from "effect/ParseResult"
/** A UNIQUE or PRIMARY KEY constraint refused the write (e.g. two concurrent creates of one email). */
export const isUniqueViolation = (error: SqlError.SqlError): boolean => {
  const cause = error.cause as { readonly code?: unknown } | null | undefined
  const code = typeof cause === "object" && cause !== null ? cause.code : undefined
  return code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY"
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
