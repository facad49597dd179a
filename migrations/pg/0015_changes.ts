import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { randomBytes } from "node:crypto"

/**
 * The change feed: one row per change to a person, an event or a guest, written by the transaction
 * of the write that makes it; `seq` is the feed's order.
 *
 * - `changes.seq`: SQLite's `INTEGER PRIMARY KEY AUTOINCREMENT` (a number never handed out twice,
 *   even once retention has deleted the newest rows) is here `bigint GENERATED ALWAYS AS
 *   IDENTITY`, whose sequence never goes back either. A sequence hands numbers out at insert, not
 *   at commit, so commit order on PostgreSQL rests on one writer per organization at a time
 *   (src/Changes/ChangesRepo.ts says how each engine keeps that).
 * - index `changes_feed (organization_id, seq)`: one organization's changes after a cursor.
 * - `change_feed_pruned`: per organization, the highest `seq` retention has deleted; its key is
 *   the organization's id (a plain bigint primary key, not an identity).
 * - `change_feed_key`: the one row (`id = 1`) holding the key that makes cursors opaque, made here.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE changes (
    seq              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    organization_id  bigint NOT NULL REFERENCES organizations(id),
    type             text NOT NULL CHECK (type IN ('person', 'event', 'guest')),
    action           text NOT NULL CHECK (action IN ('created', 'updated', 'archived', 'unarchived', 'deleted', 'removed')),
    entity_id        text NOT NULL,
    event_id         text,
    occurred_at      text NOT NULL
  )`
  yield* sql`CREATE INDEX changes_feed ON changes (organization_id, seq)`
  yield* sql`CREATE TABLE change_feed_pruned (
    organization_id  bigint PRIMARY KEY REFERENCES organizations(id),
    through_seq      bigint NOT NULL
  )`
  yield* sql`CREATE TABLE change_feed_key (
    id          bigint PRIMARY KEY CHECK (id = 1),
    cursor_key  text NOT NULL
  )`
  yield* sql`INSERT INTO change_feed_key (id, cursor_key) VALUES (1, ${randomBytes(32).toString("base64")})`
})
