import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * Door links (CONTRACT §17): a check-in link of one event for volunteers without an account. The
 * token is stored only as its SHA-256; see the SQLite migration of the same number.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE door_links (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    public_id    text NOT NULL UNIQUE,
    event_id     bigint NOT NULL REFERENCES events(id),
    name         text NOT NULL,
    token_hash   bytea NOT NULL UNIQUE,
    expires_at   text NOT NULL,
    created_at   text NOT NULL,
    revoked_at   text
  )`
  yield* sql`CREATE INDEX door_links_event ON door_links (event_id, id)`
})
