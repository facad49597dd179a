import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE organizations (
    id          INTEGER PRIMARY KEY,
    slug        TEXT NOT NULL UNIQUE,
    name        TEXT NOT NULL,
    created_at  TEXT NOT NULL
  ) STRICT`
  yield* sql`CREATE TABLE users (
    id             INTEGER PRIMARY KEY,
    public_id      TEXT NOT NULL UNIQUE,
    email          TEXT NOT NULL,
    email_key      TEXT NOT NULL UNIQUE,
    first_name     TEXT,
    last_name      TEXT,
    password_hash  TEXT NOT NULL,
    created_at     TEXT NOT NULL
  ) STRICT`
  yield* sql`CREATE TABLE memberships (
    organization_id  INTEGER NOT NULL REFERENCES organizations(id),
    user_id          INTEGER NOT NULL REFERENCES users(id),
    role             TEXT NOT NULL CHECK (role IN ('Super Admin', 'Admin', 'Team Member', 'Viewer')),
    created_at       TEXT NOT NULL,
    PRIMARY KEY (organization_id, user_id)
  ) STRICT, WITHOUT ROWID`
  yield* sql`CREATE INDEX memberships_user ON memberships (user_id)`
  yield* sql`CREATE TABLE api_tokens (
    id               INTEGER PRIMARY KEY,
    public_id        TEXT NOT NULL UNIQUE,
    organization_id  INTEGER NOT NULL REFERENCES organizations(id),
    name             TEXT NOT NULL,
    token_hash       BLOB NOT NULL UNIQUE,
    created_at       TEXT NOT NULL,
    last_used_at     TEXT,
    revoked_at       TEXT
  ) STRICT`
  yield* sql`CREATE INDEX api_tokens_organization ON api_tokens (organization_id, id)`
  yield* sql`CREATE TABLE access_tokens (
    id          INTEGER PRIMARY KEY,
    public_id   TEXT NOT NULL UNIQUE,
    user_id     INTEGER NOT NULL REFERENCES users(id),
    token_hash  BLOB NOT NULL UNIQUE,
    created_at  TEXT NOT NULL,
    expires_at  TEXT NOT NULL
  ) STRICT`
  yield* sql`CREATE INDEX access_tokens_expiry ON access_tokens (expires_at)`
})
