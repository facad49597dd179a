import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import { Unavailable } from "../Http/Errors.js"

/** Whether the service takes traffic: the database answers, and no shutdown has begun. */
export class Readiness extends Effect.Service<Readiness>()("Convene/Readiness", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const draining = yield* Ref.make(false)
    const check = Effect.gen(function*() {
      if (yield* Ref.get(draining)) {
        return yield* new Unavailable({ message: "Shutting down" })
      }
      yield* sql`SELECT 1 FROM effect_sql_migrations LIMIT 1`.pipe(
        Effect.mapError(() => new Unavailable({ message: "Database unreachable" }))
      )
      return { status: "ok" } as const
    })
    return { check, drain: Ref.set(draining, true) } as const
  })
}) {}
