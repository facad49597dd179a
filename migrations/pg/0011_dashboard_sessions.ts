import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * Dashboard sessions: the cookie holds a random id, only its SHA-256 is stored (`token_hash`); a
 * session belongs to one user, remembers the organization they work in, carries its CSRF token and
 * the one message the next page shows (`flash`). Same as the SQLite step.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE sessions (
    id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    public_id        text NOT NULL UNIQUE,
    token_hash       bytea NOT NULL UNIQUE,
    user_id          bigint NOT NULL REFERENCES users(id),
    organization_id  bigint REFERENCES organizations(id),
    csrf             text NOT NULL,
    created_at       text NOT NULL,
    last_seen_at     text NOT NULL,
    expires_at       text NOT NULL,
    revoked_at       text,
    flash            text
  )`
  yield* sql`CREATE INDEX sessions_user ON sessions (user_id)`
})
