import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * Door links (CONTRACT §17): a check-in link of one event for volunteers without an account,
 * `/door/<token>`. The token (256 random bits) is stored only as its SHA-256, found by that hash;
 * a link is named ("North entrance"), ends at `expires_at` (UTC, ISO 8601) or when revoked, and is
 * listed on its event's page (`door_links_event`).
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE door_links (
    id           INTEGER PRIMARY KEY,
    public_id    TEXT NOT NULL UNIQUE,
    event_id     INTEGER NOT NULL REFERENCES events(id),
    name         TEXT NOT NULL,
    token_hash   BLOB NOT NULL UNIQUE,
    expires_at   TEXT NOT NULL,
    created_at   TEXT NOT NULL,
    revoked_at   TEXT
  ) STRICT`
  yield* sql`CREATE INDEX door_links_event ON door_links (event_id, id)`
})
