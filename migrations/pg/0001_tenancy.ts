/**
 * PostgreSQL migrations: the same numbered steps as the SQLite ones in `migrations/`, producing the
 * same logical schema (test/repo/schema-engines.test.ts migrates both and compares them through
 * test/support/LogicalSchema/). A database migrated to step N on one engine matches step N on the
 * other; each file says where its engine differs.
 *
 * Type mapping, for the whole project:
 * - SQLite `INTEGER` → `bigint`. A surrogate key (`INTEGER PRIMARY KEY`, the rowid, or
 *   `AUTOINCREMENT`) → `bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY`: the database picks it,
 *   as SQLite does. A primary key that is not picked by the database (a foreign key used as the
 *   key, `outbox_emails.delivery_id`, `change_feed_pruned.organization_id`, or the singleton
 *   `change_feed_key.id = 1`) is a plain `bigint PRIMARY KEY`.
 *   An identity never hands a number out twice; a SQLite rowid without AUTOINCREMENT may reuse the
 *   highest one once its row is deleted (no code depends on either).
 * - Booleans stored as INTEGER 0/1 (`is_preferred`, `is_public`, `capacity_enabled`,
 *   `ticketing_enabled`) → `integer`, same 0/1 values and same defaults. The SQLite tables carry no
 *   CHECK on them, so neither does PostgreSQL (the schemas must compare equal).
 * - `TEXT` → `text`, `REAL` → `double precision`, `BLOB` → `bytea`.
 * - Dates and times stay ISO-8601 `text` as in SQLite (`2026-01-31T12:00:00.000Z`): the code
 *   compares and orders them as text. Epoch milliseconds (`next_attempt_at`, `claimed_until`,
 *   `idempotency_keys.created_at`) are `bigint`.
 * - `STRICT` (SQLite's typed columns) has no counterpart: PostgreSQL's columns are typed anyway.
 *   `WITHOUT ROWID` (a table stored in its primary key's b-tree) has no counterpart either: such a
 *   table is a heap with a primary key index.
 * - CHECK constraints keep their meaning; PostgreSQL rewrites `x IN (...)` as `x = ANY (ARRAY[...])`.
 * - A primary key's columns are NOT NULL in PostgreSQL; a SQLite rowid table allows NULL in the
 *   columns of a composite primary key unless declared NOT NULL (every one here is).
 * - The SQLite-only objects and their counterparts: the FTS5 table `persons_search` and its
 *   triggers (0006) → a `pg_trgm` GIN index; the `attended_at` triggers (0013) → PL/pgSQL triggers
 *   of the same names and behaviour.
 * The service's numbers come back from `pg` as strings for `bigint` (and `count(*)`) unless a type
 * parser is set: read them as numbers on purpose.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/** Organizations, users, memberships (a role per user and organization) and tokens. */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE organizations (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    slug        text NOT NULL UNIQUE,
    name        text NOT NULL,
    created_at  text NOT NULL
  )`
  yield* sql`CREATE TABLE users (
    id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    public_id      text NOT NULL UNIQUE,
    email          text NOT NULL,
    email_key      text NOT NULL UNIQUE,
    first_name     text,
    last_name      text,
    password_hash  text NOT NULL,
    created_at     text NOT NULL
  )`
  // SQLite: WITHOUT ROWID (no counterpart).
  yield* sql`CREATE TABLE memberships (
    organization_id  bigint NOT NULL REFERENCES organizations(id),
    user_id          bigint NOT NULL REFERENCES users(id),
    role             text NOT NULL CHECK (role IN ('Super Admin', 'Admin', 'Team Member', 'Viewer')),
    created_at       text NOT NULL,
    PRIMARY KEY (organization_id, user_id)
  )`
  yield* sql`CREATE INDEX memberships_user ON memberships (user_id)`
  yield* sql`CREATE TABLE api_tokens (
    id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    public_id        text NOT NULL UNIQUE,
    organization_id  bigint NOT NULL REFERENCES organizations(id),
    name             text NOT NULL,
    token_hash       bytea NOT NULL UNIQUE,
    created_at       text NOT NULL,
    last_used_at     text,
    revoked_at       text
  )`
  yield* sql`CREATE INDEX api_tokens_organization ON api_tokens (organization_id, id)`
  yield* sql`CREATE TABLE access_tokens (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    public_id   text NOT NULL UNIQUE,
    user_id     bigint NOT NULL REFERENCES users(id),
    token_hash  bytea NOT NULL UNIQUE,
    created_at  text NOT NULL,
    expires_at  text NOT NULL
  )`
  yield* sql`CREATE INDEX access_tokens_expiry ON access_tokens (expires_at)`
})
