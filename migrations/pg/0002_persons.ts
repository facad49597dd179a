import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * Persons (contacts) of an organization, their phones, SMS consents, custom fields and values.
 * Same as the SQLite step (types: migrations/pg/0001_tenancy.ts); `sms_consents` is WITHOUT ROWID
 * there (no counterpart).
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE persons (
    id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    public_id        text NOT NULL UNIQUE,
    organization_id  bigint NOT NULL REFERENCES organizations(id),
    first_name       text NOT NULL,
    last_name        text NOT NULL,
    email            text NOT NULL,
    email_key        text NOT NULL,
    name_key         text NOT NULL,
    profile_picture  text,
    company          text,
    position         text,
    birthday         text,
    address          text,
    apartment        text,
    city             text,
    state            text,
    country          text,
    postal_code      text,
    context_note     text,
    created_at       text NOT NULL,
    updated_at       text NOT NULL,
    archived_at      text
  )`
  // One active person per email and organization: the database enforces it, not only the code.
  yield* sql`CREATE UNIQUE INDEX persons_active_email ON persons (organization_id, email_key) WHERE archived_at IS NULL`
  yield* sql`CREATE INDEX persons_organization ON persons (organization_id, archived_at, id)`
  yield* sql`CREATE INDEX persons_email ON persons (organization_id, email_key, id)`
  // is_preferred: a boolean, 0 or 1
  yield* sql`CREATE TABLE phones (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    person_id     bigint NOT NULL REFERENCES persons(id),
    number        text NOT NULL,
    is_preferred  integer NOT NULL DEFAULT 0,
    created_at    text NOT NULL,
    UNIQUE (person_id, number)
  )`
  yield* sql`CREATE TABLE sms_consents (
    organization_id  bigint NOT NULL REFERENCES organizations(id),
    number           text NOT NULL,
    consent          text NOT NULL CHECK (consent IN ('optedIn', 'optedOut', 'none')),
    source           text NOT NULL,
    updated_at       text NOT NULL,
    PRIMARY KEY (organization_id, number)
  )`
  yield* sql`CREATE TABLE custom_fields (
    id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    public_id        text NOT NULL UNIQUE,
    organization_id  bigint NOT NULL REFERENCES organizations(id),
    name             text NOT NULL,
    name_key         text NOT NULL,
    type             text NOT NULL CHECK (type IN ('text', 'number', 'multiselect')),
    created_at       text NOT NULL,
    UNIQUE (organization_id, name_key)
  )`
  yield* sql`CREATE TABLE custom_field_options (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    public_id  text NOT NULL UNIQUE,
    field_id   bigint NOT NULL REFERENCES custom_fields(id),
    value      text NOT NULL,
    color      text NOT NULL,
    UNIQUE (field_id, value)
  )`
  // One row per person and field: a text or number value, or for multiselect a JSON array of option ids.
  yield* sql`CREATE TABLE person_field_values (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    public_id   text NOT NULL UNIQUE,
    person_id   bigint NOT NULL REFERENCES persons(id),
    field_id    bigint NOT NULL REFERENCES custom_fields(id),
    value       text NOT NULL,
    updated_at  text NOT NULL,
    UNIQUE (person_id, field_id)
  )`
})
