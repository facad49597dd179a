import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { randomBytes } from "node:crypto"

/**
 * The change feed (docs/integrators.md#syncing-with-the-change-feed): one row per change to a
 * person, an event or a guest, written by the transaction of the write that makes it
 * (src/Changes/). `seq` is the feed's order: numbers are taken inside the write's transaction and
 * only one writer commits changes of an organization at a time, so a higher `seq` always
 * committed later (src/Changes/ChangesRepo.ts says how each engine keeps that).
 *
 * - `changes`: `seq` is `AUTOINCREMENT` (SQLite-specific; PostgreSQL: `bigint GENERATED ALWAYS AS
 *   IDENTITY`) so that a number is never handed out twice, even once retention has deleted the
 *   newest rows: a plain rowid would restart below a cursor a client still holds. `entity_id` is
 *   the person's or event's public id (for a guest: the person's), `event_id` the event's public
 *   id for guests, null otherwise. STRICT is SQLite-specific (PostgreSQL's columns are typed anyway).
 * - index `changes_feed (organization_id, seq)`: the feed reads one organization's changes after a
 *   cursor in `seq` order, and its newest `seq`, from it alone.
 * - retention deletes the oldest changes first, walking the primary key from its start (the
 *   oldest rows are the first ones), so it needs no index of its own: each pass reads a few
 *   thousand rows from the front of `seq`, whatever the size of the table.
 * - `change_feed_pruned`: per organization, the highest `seq` retention has deleted. A cursor
 *   below it missed a change: 410 `cursor_expired`.
 * - `change_feed_key`: the key that makes cursors opaque and tamper-evident (Changes/Cursor.ts),
 *   made here once, so that cursors outlive restarts and are the same on every instance.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE changes (
    seq              INTEGER PRIMARY KEY AUTOINCREMENT,
    organization_id  INTEGER NOT NULL REFERENCES organizations(id),
    type             TEXT NOT NULL CHECK (type IN ('person', 'event', 'guest')),
    action           TEXT NOT NULL CHECK (action IN ('created', 'updated', 'archived', 'unarchived', 'deleted', 'removed')),
    entity_id        TEXT NOT NULL,
    event_id         TEXT,
    occurred_at      TEXT NOT NULL
  ) STRICT`
  yield* sql`CREATE INDEX changes_feed ON changes (organization_id, seq)`
  yield* sql`CREATE TABLE change_feed_pruned (
    organization_id  INTEGER PRIMARY KEY REFERENCES organizations(id),
    through_seq      INTEGER NOT NULL
  ) STRICT`
  yield* sql`CREATE TABLE change_feed_key (
    id          INTEGER PRIMARY KEY CHECK (id = 1),
    cursor_key  TEXT NOT NULL
  ) STRICT`
  yield* sql`INSERT INTO change_feed_key (id, cursor_key) VALUES (1, ${randomBytes(32).toString("base64")})`
})
