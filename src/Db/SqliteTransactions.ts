/**
 * The SQLite client's one writing connection and its transactions (Sqlite.ts). A statement outside
 * a transaction waits while a transaction holds the connection; `open()` tells whether one does,
 * from the moment its permit is taken to the moment its transaction has ended, after its last
 * statement (`DirectSql.writing`, and what `DirectSql`'s reads check before running at once).
 *
 * A write transaction runs in a few steps instead of `@effect/sql`'s general path (a span, a scope
 * and an acquired connection around every transaction: bench/RESULTS.md, issue 18), with the same
 * rules: the connection's permit is awaited (interruptibly), BEGIN IMMEDIATE, the effect with the
 * connection as its `TransactionConnection`, then COMMIT on success and ROLLBACK otherwise, and
 * the permit given back whatever happens. A transaction inside another one is `@effect/sql`'s
 * savepoint, as before.
 *
 * A read transaction (`DirectSql.readTransaction`) is the same with a deferred BEGIN, which takes
 * no lock on the file until something writes (nothing should), so that another process (the CLI)
 * may write meanwhile; inside a transaction or a snapshot already, its effect just runs there. It
 * holds the one connection as any transaction does, which costs nothing while its reads run (they
 * are synchronous), and reads of other fibers go on beside it.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type * as SqlConnection from "@effect/sql/SqlConnection"
import type * as SqlError from "@effect/sql/SqlError"
import type Database from "better-sqlite3"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberRef from "effect/FiberRef"
import * as Scope from "effect/Scope"
import { CurrentSnapshot } from "./SqliteReaders.js"

type Restore = <X, Y, Z>(effect: Effect.Effect<X, Y, Z>) => Effect.Effect<X, Y, Z>

export const makeTransactions = (options: {
  readonly db: Database.Database
  readonly connection: SqlConnection.Connection
  readonly prepare: (sql: string) => Database.Statement
  readonly failed: (cause: unknown) => SqlError.SqlError
}) =>
  Effect.gen(function*() {
    const { connection, db, failed, prepare } = options
    const semaphore = yield* Effect.makeSemaphore(1)
    let transactionOpen = false

    /** The connection for a statement of `@effect/sql` outside a transaction: after any transaction. */
    const acquirer = semaphore.withPermits(1)(Effect.succeed(connection))
    /** The connection for a transaction of `@effect/sql`: held until the transaction's scope closes. */
    const transactionAcquirer = Effect.uninterruptibleMask((restore) =>
      Effect.as(
        Effect.zipRight(
          restore(semaphore.take(1)),
          Effect.tap(Effect.scope, (scope) =>
            Effect.zipRight(
              Effect.sync(() => {
                transactionOpen = true
              }),
              Scope.addFinalizer(
                scope,
                Effect.zipRight(
                  Effect.sync(() => {
                    transactionOpen = false
                  }),
                  semaphore.release(1)
                )
              )
            ))
        ),
        connection
      )
    )

    const control = (text: string) => {
      try {
        prepare(text).run()
        return undefined
      } catch (cause) {
        return failed(cause)
      }
    }
    /** Takes the connection (waiting through `restore`, interruptibly) and begins a transaction; gives it back if BEGIN fails. */
    const begin = (kind: "read" | "write", restore: Restore) =>
      Effect.flatMap(restore(semaphore.take(1)), () => {
        transactionOpen = true
        const failure = control(kind === "write" ? "BEGIN IMMEDIATE" : "BEGIN")
        if (failure === undefined) return Effect.void
        transactionOpen = false
        return Effect.zipRight(semaphore.release(1), Effect.fail(failure))
      })
    /**
     * Ends the transaction when called: COMMIT, else ROLLBACK (a COMMIT that fails leaves the
     * transaction open: it is rolled back). The effect gives the connection back and answers the failure.
     */
    const end = (commit: boolean): Effect.Effect<void, SqlError.SqlError> => {
      const failure = control(commit ? "COMMIT" : "ROLLBACK")
      if (db.inTransaction) control("ROLLBACK")
      transactionOpen = false
      return Effect.zipRight(semaphore.release(1), failure === undefined ? Effect.void : Effect.fail(failure))
    }
    /** A transaction of `kind` around an effect; `nested` is `@effect/sql`'s, for a write inside a write. */
    const transaction = (kind: "read" | "write", nested: SqlClient.SqlClient["withTransaction"]) =>
    <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | SqlError.SqlError, R> =>
      Effect.uninterruptibleMask((restore) =>
        Effect.withFiberRuntime<A, E | SqlError.SqlError, R>((fiber) => {
          const context = fiber.currentContext
          if (kind === "read") {
            if (
              Context.getOption(context, SqlClient.TransactionConnection)._tag === "Some" ||
              Context.getOption(context, CurrentSnapshot)._tag === "Some"
            ) return restore(effect)
          } else if (Context.getOption(context, SqlClient.TransactionConnection)._tag === "Some") return nested(restore(effect))
          return Effect.flatMap(begin(kind, restore), () =>
            Effect.flatMap(
              Effect.exit(Effect.locally(
                restore(effect),
                FiberRef.currentContext,
                Context.add(context, SqlClient.TransactionConnection, [connection, 0] as const)
              )),
              // a COMMIT that fails is a defect
              (exit) => Effect.zipRight(Effect.orDie(end(Exit.isSuccess(exit))), exit)
            ))
        })
      )

    return { semaphore, open: () => transactionOpen, acquirer, transactionAcquirer, begin, end, transaction }
  })
