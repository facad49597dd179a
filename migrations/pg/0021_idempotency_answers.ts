import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * Idempotency keys hold finished answers only: "running" is an advisory lock held by the request's
 * transaction (src/Db/OpenTransaction.ts), not a row. Same as the SQLite step: keys left running
 * by the previous version are dropped, `state` goes, `status` and `body` are always there.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`DELETE FROM idempotency_keys WHERE state <> 'done' OR status IS NULL OR body IS NULL`
  yield* sql`ALTER TABLE idempotency_keys DROP COLUMN state`
  yield* sql`ALTER TABLE idempotency_keys ALTER COLUMN status SET NOT NULL`
  yield* sql`ALTER TABLE idempotency_keys ALTER COLUMN body SET NOT NULL`
})
