import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * Dashboard sessions (docs/integrators.md#the-dashboard): the cookie holds a random id; only its SHA-256 is stored. A
 * session belongs to one user, remembers the organization they work in, carries the CSRF token
 * its forms must send back, and ends when idle too long, after 7 days, at sign-out, or when the
 * user's password changes. `flash` is the one message the next page shows ("Event created").
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE sessions (
    id               INTEGER PRIMARY KEY,
    public_id        TEXT NOT NULL UNIQUE,
    token_hash       BLOB NOT NULL UNIQUE,
    user_id          INTEGER NOT NULL REFERENCES users(id),
    organization_id  INTEGER REFERENCES organizations(id),
    csrf             TEXT NOT NULL,
    created_at       TEXT NOT NULL,
    last_seen_at     TEXT NOT NULL,
    expires_at       TEXT NOT NULL,
    revoked_at       TEXT,
    flash            TEXT
  ) STRICT`
  yield* sql`CREATE INDEX sessions_user ON sessions (user_id)`
})
