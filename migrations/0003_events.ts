import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE events (
    id                        INTEGER PRIMARY KEY,
    public_id                 TEXT NOT NULL UNIQUE,
    organization_id           INTEGER NOT NULL REFERENCES organizations(id),
    name                      TEXT NOT NULL,
    slug                      TEXT UNIQUE,
    primary_date              TEXT NOT NULL,
    timezone                  TEXT NOT NULL,
    is_public                 INTEGER NOT NULL DEFAULT 0,
    location_name             TEXT,
    location_address          TEXT,
    location_apartment        TEXT,
    location_city             TEXT,
    location_state            TEXT,
    location_postal_code      TEXT,
    location_country          TEXT,
    location_phone_number     TEXT,
    location_website          TEXT,
    virtual_locations         TEXT NOT NULL DEFAULT '[]',
    event_tags                TEXT NOT NULL DEFAULT '[]',
    images                    TEXT NOT NULL DEFAULT '[]',
    rsvp_description          TEXT,
    link_preview_description  TEXT,
    featured_image            TEXT,
    capacity_enabled          INTEGER NOT NULL DEFAULT 0,
    capacity                  INTEGER,
    ticketing_enabled         INTEGER NOT NULL DEFAULT 0,
    rsvp_questions            TEXT NOT NULL DEFAULT '[]',
    custom_columns            TEXT NOT NULL DEFAULT '[]',
    created_by_user_id        INTEGER REFERENCES users(id),
    created_at                TEXT NOT NULL,
    updated_at                TEXT NOT NULL
  ) STRICT`
  yield* sql`CREATE INDEX events_organization_date ON events (organization_id, primary_date, id)`
  yield* sql`CREATE TABLE event_hosts (
    event_id  INTEGER NOT NULL REFERENCES events(id),
    user_id   INTEGER NOT NULL REFERENCES users(id),
    PRIMARY KEY (event_id, user_id)
  ) STRICT, WITHOUT ROWID`
  yield* sql`CREATE INDEX event_hosts_user ON event_hosts (user_id, event_id)`
  yield* sql`CREATE TABLE event_guests (
    id                       INTEGER PRIMARY KEY,
    event_id                 INTEGER NOT NULL REFERENCES events(id),
    person_id                INTEGER NOT NULL REFERENCES persons(id),
    rsvp_status              TEXT NOT NULL,
    attendance_status        TEXT CHECK (attendance_status IN ('Attended', 'No Show')),
    dietary_restrictions     TEXT,
    rsvp_note                TEXT,
    custom_columns           TEXT,
    rsvp_question_responses  TEXT NOT NULL DEFAULT '[]',
    created_at               TEXT NOT NULL,
    updated_at               TEXT NOT NULL,
    removed_at               TEXT,
    UNIQUE (event_id, person_id)
  ) STRICT`
  yield* sql`CREATE INDEX event_guests_event ON event_guests (event_id, id)`
  yield* sql`CREATE INDEX event_guests_person ON event_guests (person_id)`
  yield* sql`CREATE TABLE rsvp_history (
    id              INTEGER PRIMARY KEY,
    event_guest_id  INTEGER NOT NULL REFERENCES event_guests(id),
    status          TEXT NOT NULL,
    actor_type      TEXT NOT NULL,
    actor_id        TEXT NOT NULL,
    action_type     TEXT NOT NULL CHECK (action_type IN ('added', 'updated')),
    created_at      TEXT NOT NULL
  ) STRICT`
  yield* sql`CREATE INDEX rsvp_history_guest ON rsvp_history (event_guest_id, id)`
  yield* sql`CREATE TABLE invites (
    id              INTEGER PRIMARY KEY,
    event_guest_id  INTEGER NOT NULL UNIQUE REFERENCES event_guests(id),
    token           TEXT NOT NULL UNIQUE,
    created_at      TEXT NOT NULL
  ) STRICT`
})
