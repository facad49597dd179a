import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE persons (
    id               INTEGER PRIMARY KEY,
    public_id        TEXT NOT NULL UNIQUE,
    organization_id  INTEGER NOT NULL REFERENCES organizations(id),
    first_name       TEXT NOT NULL,
    last_name        TEXT NOT NULL,
    email            TEXT NOT NULL,
    email_key        TEXT NOT NULL,
    name_key         TEXT NOT NULL,
    profile_picture  TEXT,
    company          TEXT,
    position         TEXT,
    birthday         TEXT,
    address          TEXT,
    apartment        TEXT,
    city             TEXT,
    state            TEXT,
    country          TEXT,
    postal_code      TEXT,
    context_note     TEXT,
    created_at       TEXT NOT NULL,
    updated_at       TEXT NOT NULL,
    archived_at      TEXT
  ) STRICT`
  // One active person per email and organization: the database enforces it, not only the code.
  yield* sql`CREATE UNIQUE INDEX persons_active_email ON persons (organization_id, email_key) WHERE archived_at IS NULL`
  yield* sql`CREATE INDEX persons_organization ON persons (organization_id, archived_at, id)`
  yield* sql`CREATE INDEX persons_email ON persons (organization_id, email_key, id)`
  yield* sql`CREATE TABLE phones (
    id            INTEGER PRIMARY KEY,
    person_id     INTEGER NOT NULL REFERENCES persons(id),
    number        TEXT NOT NULL,
    is_preferred  INTEGER NOT NULL DEFAULT 0,
    created_at    TEXT NOT NULL,
    UNIQUE (person_id, number)
  ) STRICT`
  yield* sql`CREATE TABLE sms_consents (
    organization_id  INTEGER NOT NULL REFERENCES organizations(id),
    number           TEXT NOT NULL,
    consent          TEXT NOT NULL CHECK (consent IN ('optedIn', 'optedOut', 'none')),
    source           TEXT NOT NULL,
    updated_at       TEXT NOT NULL,
    PRIMARY KEY (organization_id, number)
  ) STRICT, WITHOUT ROWID`
  yield* sql`CREATE TABLE custom_fields (
    id               INTEGER PRIMARY KEY,
    public_id        TEXT NOT NULL UNIQUE,
    organization_id  INTEGER NOT NULL REFERENCES organizations(id),
    name             TEXT NOT NULL,
    name_key         TEXT NOT NULL,
    type             TEXT NOT NULL CHECK (type IN ('text', 'number', 'multiselect')),
    created_at       TEXT NOT NULL,
    UNIQUE (organization_id, name_key)
  ) STRICT`
  yield* sql`CREATE TABLE custom_field_options (
    id         INTEGER PRIMARY KEY,
    public_id  TEXT NOT NULL UNIQUE,
    field_id   INTEGER NOT NULL REFERENCES custom_fields(id),
    value      TEXT NOT NULL,
    color      TEXT NOT NULL,
    UNIQUE (field_id, value)
  ) STRICT`
  // One row per person and field: a text or number value, or for multiselect a JSON array of option ids.
  yield* sql`CREATE TABLE person_field_values (
    id          INTEGER PRIMARY KEY,
    public_id   TEXT NOT NULL UNIQUE,
    person_id   INTEGER NOT NULL REFERENCES persons(id),
    field_id    INTEGER NOT NULL REFERENCES custom_fields(id),
    value       TEXT NOT NULL,
    updated_at  TEXT NOT NULL,
    UNIQUE (person_id, field_id)
  ) STRICT`
})
