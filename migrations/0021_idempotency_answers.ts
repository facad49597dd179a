import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * Idempotency keys hold finished answers only (docs/integrators.md#idempotency-keys): a request
 * with a key runs in one transaction that writes its answer before it commits, and "running" is
 * a lock that ends with that transaction (src/Db/OpenTransaction.ts), not a row. The `state`
 * column goes; `status` and `body` are always there. Keys left running by the previous version
 * belonged to requests that are not running any more: they are dropped. SQLite cannot drop a
 * column with a CHECK nor add NOT NULL in place, so the table is made again.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE idempotency_answers (
    caller_key    TEXT NOT NULL,
    key           TEXT NOT NULL,
    fingerprint   BLOB NOT NULL,
    status        INTEGER NOT NULL,
    content_type  TEXT,
    body          BLOB NOT NULL,
    created_at    INTEGER NOT NULL,
    PRIMARY KEY (caller_key, key)
  ) STRICT, WITHOUT ROWID`
  yield* sql`INSERT INTO idempotency_answers (caller_key, key, fingerprint, status, content_type, body, created_at)
    SELECT caller_key, key, fingerprint, status, content_type, body, created_at FROM idempotency_keys
    WHERE state = 'done' AND status IS NOT NULL AND body IS NOT NULL`
  yield* sql`DROP TABLE idempotency_keys`
  yield* sql`ALTER TABLE idempotency_answers RENAME TO idempotency_keys`
  yield* sql`CREATE INDEX idempotency_keys_age ON idempotency_keys (created_at)`
})
