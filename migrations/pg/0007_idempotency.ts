import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * First responses of requests sent with an Idempotency-Key, kept 24 hours per caller. Same as the
 * SQLite step; WITHOUT ROWID there (no counterpart). `created_at` is epoch milliseconds (`bigint`),
 * `fingerprint` and `body` bytes (`bytea`).
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE idempotency_keys (
    caller_key    text NOT NULL,
    key           text NOT NULL,
    fingerprint   bytea NOT NULL,
    state         text NOT NULL CHECK (state IN ('running', 'done')),
    status        bigint,
    content_type  text,
    body          bytea,
    created_at    bigint NOT NULL,
    PRIMARY KEY (caller_key, key)
  )`
  yield* sql`CREATE INDEX idempotency_keys_age ON idempotency_keys (created_at)`
})
