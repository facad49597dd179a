import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * The start of the receiver's answer to the last attempt (at most 1,024 characters of the body, as
 * text), for the delivery log; null until an attempt has had an answer. Same as the SQLite step.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE webhook_deliveries ADD COLUMN last_response text`
})
