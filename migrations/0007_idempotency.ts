import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/** First responses of requests sent with an Idempotency-Key, kept 24 hours per caller (docs/integrators.md#idempotency-keys). */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE idempotency_keys (
    caller_key    TEXT NOT NULL,
    key           TEXT NOT NULL,
    fingerprint   BLOB NOT NULL,
    state         TEXT NOT NULL CHECK (state IN ('running', 'done')),
    status        INTEGER,
    content_type  TEXT,
    body          BLOB,
    created_at    INTEGER NOT NULL,
    PRIMARY KEY (caller_key, key)
  ) STRICT, WITHOUT ROWID`
  yield* sql`CREATE INDEX idempotency_keys_age ON idempotency_keys (created_at)`
})
