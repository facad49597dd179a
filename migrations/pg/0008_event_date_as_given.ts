import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * An event's `primaryDate` is answered as it was given (with its own offset); the instant, in UTC,
 * orders events and tells past from upcoming. Rows written before held the UTC form already.
 * The same steps as the SQLite one (the column keeps its default '', as SQLite's ADD COLUMN must
 * have one for a NOT NULL column).
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE events ADD COLUMN primary_date_utc text NOT NULL DEFAULT ''`
  yield* sql`UPDATE events SET primary_date_utc = primary_date`
  yield* sql`DROP INDEX events_organization_date`
  yield* sql`CREATE INDEX events_organization_date ON events (organization_id, primary_date_utc, id)`
})
