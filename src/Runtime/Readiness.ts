/**
 * Whether this instance can serve requests (CONTRACT §15): the database answers and its migrations
 * are applied, `DATABASE_PATH` still names the file that is open, and no shutdown has begun. Nothing
 * else: background work (the outbox, retention) recovers by itself and never makes `/readyz` fail.
 *
 * SQLite keeps writing to an open file after it is deleted or replaced on disk (by a mistaken
 * `rm`, or a restore over a running server): every write then lands in an unlinked file and is
 * lost at the next restart. The file's identity (device and inode) is taken at start and checked
 * every second: once it differs, `/readyz` answers 503, the log says so at Error level, and
 * `writable` refuses writes so that no request is told its data was stored when it was not.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import { statSync } from "node:fs"
import { repeatedly } from "./Background.js"
import { AppConfig } from "../Config/AppConfig.js"
import { Unavailable } from "../Domain/Errors.js"

const CHECK_EVERY = Duration.seconds(1)

interface FileIdentity {
  readonly dev: number
  readonly ino: number
}

const identityOf = (path: string): Option.Option<FileIdentity> => {
  try {
    const { dev, ino } = statSync(path)
    return Option.some({ dev, ino })
  } catch {
    return Option.none()
  }
}

export class Readiness extends Effect.Service<Readiness>()("Convene/Readiness", {
  scoped: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const { databasePath, databaseUrl } = yield* AppConfig
    const draining = yield* Ref.make(false)
    // SQLite: the file the service opened (a PostgreSQL database has no file here to watch)
    const opened = Option.isSome(databaseUrl) ? Option.none() : identityOf(databasePath)

    /** Why the open database is no longer the file at `DATABASE_PATH`, if it is not. */
    const fileProblem = Effect.sync((): string | undefined => {
      if (Option.isNone(opened)) return undefined
      const now = identityOf(databasePath)
      if (Option.isNone(now)) return `The database file ${databasePath} was deleted while the service had it open`
      return now.value.dev !== opened.value.dev || now.value.ino !== opened.value.ino
        ? `The database file ${databasePath} was replaced while the service had it open`
        : undefined
    })
    const lost = yield* Ref.make<string | undefined>(undefined)

    /** Noticed once, logged once: the operator must restart the service on the right file. */
    const notice = (problem: string) =>
      Effect.flatMap(Ref.getAndSet(lost, problem), (before) =>
        before === undefined
          ? Effect.logError(`${problem}: writes are refused and /readyz answers 503 until the service is restarted`)
          : Effect.void)
    yield* repeatedly(
      "database file check",
      Effect.flatMap(fileProblem, (problem) => (problem === undefined ? Effect.void : notice(problem))),
      CHECK_EVERY
    )

    const check = Effect.gen(function*() {
      if (yield* Ref.get(draining)) {
        return yield* new Unavailable({ message: "Shutting down" })
      }
      const problem = (yield* Ref.get(lost)) ?? (yield* fileProblem)
      if (problem !== undefined) {
        yield* notice(problem)
        return yield* new Unavailable({ message: problem })
      }
      yield* sql`SELECT 1 FROM effect_sql_migrations LIMIT 1`.pipe(
        Effect.mapError(() => new Unavailable({ message: "Database unreachable" }))
      )
      return { status: "ok" } as const
    })

    /** Fails while the database file is lost: a write now would be lost at the next restart. */
    const writable: Effect.Effect<void, Unavailable> = Effect.flatMap(Ref.get(lost), (problem) =>
      problem === undefined ? Effect.void : Effect.fail(new Unavailable({ message: `${problem}; the change was not made` })))

    return { check, writable, drain: Ref.set(draining, true) } as const
  })
}) {}
