import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * Events, their hosts, guests (one row per person and event), RSVP histories and invite links.
 * Same as the SQLite step (types: migrations/pg/0001_tenancy.ts); `event_hosts` is WITHOUT ROWID
 * there (no counterpart). JSON lists (`virtual_locations`, `event_tags`, ...) stay `text` holding
 * JSON, as in SQLite, not `jsonb`: the code reads and writes them as text.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  // is_public, capacity_enabled, ticketing_enabled: booleans, 0 or 1
  yield* sql`CREATE TABLE events (
    id                        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    public_id                 text NOT NULL UNIQUE,
    organization_id           bigint NOT NULL REFERENCES organizations(id),
    name                      text NOT NULL,
    slug                      text UNIQUE,
    primary_date              text NOT NULL,
    timezone                  text NOT NULL,
    is_public                 integer NOT NULL DEFAULT 0,
    location_name             text,
    location_address          text,
    location_apartment        text,
    location_city             text,
    location_state            text,
    location_postal_code      text,
    location_country          text,
    location_phone_number     text,
    location_website          text,
    virtual_locations         text NOT NULL DEFAULT '[]',
    event_tags                text NOT NULL DEFAULT '[]',
    images                    text NOT NULL DEFAULT '[]',
    rsvp_description          text,
    link_preview_description  text,
    featured_image            text,
    capacity_enabled          integer NOT NULL DEFAULT 0,
    capacity                  bigint,
    ticketing_enabled         integer NOT NULL DEFAULT 0,
    rsvp_questions            text NOT NULL DEFAULT '[]',
    custom_columns            text NOT NULL DEFAULT '[]',
    created_by_user_id        bigint REFERENCES users(id),
    created_at                text NOT NULL,
    updated_at                text NOT NULL
  )`
  yield* sql`CREATE INDEX events_organization_date ON events (organization_id, primary_date, id)`
  yield* sql`CREATE TABLE event_hosts (
    event_id  bigint NOT NULL REFERENCES events(id),
    user_id   bigint NOT NULL REFERENCES users(id),
    PRIMARY KEY (event_id, user_id)
  )`
  yield* sql`CREATE INDEX event_hosts_user ON event_hosts (user_id, event_id)`
  yield* sql`CREATE TABLE event_guests (
    id                       bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    event_id                 bigint NOT NULL REFERENCES events(id),
    person_id                bigint NOT NULL REFERENCES persons(id),
    rsvp_status              text NOT NULL,
    attendance_status        text CHECK (attendance_status IN ('Attended', 'No Show')),
    dietary_restrictions     text,
    rsvp_note                text,
    custom_columns           text,
    rsvp_question_responses  text NOT NULL DEFAULT '[]',
    created_at               text NOT NULL,
    updated_at               text NOT NULL,
    removed_at               text,
    UNIQUE (event_id, person_id)
  )`
  yield* sql`CREATE INDEX event_guests_event ON event_guests (event_id, id)`
  yield* sql`CREATE INDEX event_guests_person ON event_guests (person_id)`
  yield* sql`CREATE TABLE rsvp_history (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    event_guest_id  bigint NOT NULL REFERENCES event_guests(id),
    status          text NOT NULL,
    actor_type      text NOT NULL,
    actor_id        text NOT NULL,
    action_type     text NOT NULL CHECK (action_type IN ('added', 'updated')),
    created_at      text NOT NULL
  )`
  yield* sql`CREATE INDEX rsvp_history_guest ON rsvp_history (event_guest_id, id)`
  yield* sql`CREATE TABLE invites (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    event_guest_id  bigint NOT NULL UNIQUE REFERENCES event_guests(id),
    token           text NOT NULL UNIQUE,
    created_at      text NOT NULL
  )`
})
