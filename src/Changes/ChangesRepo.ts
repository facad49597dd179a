/**
 * The change feed in the database (migration 0015): the only module that knows how changes are
 * stored and numbered, so that another engine replaces this file and nothing else.
 *
 * The guarantee it keeps: within one organization, a change with a higher `seq` committed after
 * every change with a lower one. Then whoever reads the organization's newest `seq` (its head)
 * knows that every change up to it is committed and readable, and a reader that pages up to the
 * head it read first never moves its cursor past a change that commits later.
 * - SQLite: one writer at a time. A write transaction holds the database's write lock from its
 *   first write (BEGIN IMMEDIATE, Db/Sqlite.ts) to its commit, in this process or any other (the
 *   admin CLI), and `seq` is taken inside it: numbers are handed out in commit order.
 * - PostgreSQL: an identity value is taken when the row is inserted, not when it commits, so two
 *   transactions could take 10 and 11 and commit 11 first; a reader that saw 11 would move past 10
 *   for good. The port takes a transaction-level lock on the organization's feed right before it
 *   inserts (`SELECT pg_advisory_xact_lock(<feed lock class>, organization_id)`, then the INSERT):
 *   recording transactions of one organization then take their numbers one after another and hold
 *   the lock until their commit is visible, so `seq` order is commit order again. It serializes only
 *   writers of the same organization, and only from their recording (the last statement of the
 *   write, see `Changes.record`) to their commit. Reads need no lock.
 * SQLite-specific constructs used here, and their PostgreSQL counterparts: `json_each(?)` with
 * `j.value ->> n` and `ORDER BY j.key` (`jsonb_array_elements($1::jsonb) WITH ORDINALITY` and
 * `ORDER BY ordinality`). `RETURNING` and `ON CONFLICT ... DO UPDATE ... WHERE` read the same on both.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { DirectSql } from "../Db/Sqlite.js"
import type { ChangeAction, ChangeEntry, ChangeType } from "./Domain.js"

/** Changes per INSERT statement: an import of 50,000 rows records its 100,000 changes in 20 statements. */
export const RECORD_BATCH = 5_000

export interface ChangeRow {
  readonly seq: number
  readonly type: ChangeType
  readonly action: ChangeAction
  readonly entity_id: string
  readonly event_id: string | null
  readonly occurred_at: string
}

/** Where an organization's feed stands: its newest change and the newest change retention deleted. */
export interface FeedState {
  readonly head: number | null
  readonly pruned: number | null
}

export class ChangesRepo extends Effect.Service<ChangesRepo>()("Convene/ChangesRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const direct = yield* DirectSql

    /**
     * Records changes in `seq` order as given, in one statement per `RECORD_BATCH` (inside the
     * write's transaction; on PostgreSQL after the organization's feed lock, see above).
     */
    const insert = (organizationId: number, at: string, entries: ReadonlyArray<ChangeEntry>) =>
      Effect.forEach(
        Array.from({ length: Math.ceil(entries.length / RECORD_BATCH) }, (_, i) => entries.slice(i * RECORD_BATCH, (i + 1) * RECORD_BATCH)),
        (batch) =>
          direct.run(sql`INSERT INTO changes (organization_id, type, action, entity_id, event_id, occurred_at)
              SELECT ${organizationId}, j.value ->> 0, j.value ->> 1, j.value ->> 2, j.value ->> 3, ${at}
              FROM json_each(${JSON.stringify(batch.map((e) => [e.type, e.action, e.id, e.eventId ?? null]))}) j
              ORDER BY j.key`),
        { discard: true }
      )

    /** The organization's head and retention mark, in one statement. */
    const state = (organizationId: number) =>
      Effect.map(
        direct.first<FeedState>(sql`SELECT
            (SELECT max(seq) FROM changes WHERE organization_id = ${organizationId}) AS head,
            (SELECT through_seq FROM change_feed_pruned WHERE organization_id = ${organizationId}) AS pruned`),
        (row): FeedState => ({ head: row?.head ?? null, pruned: row?.pruned ?? null })
      )

    /** The newest change of the organization that retention deleted, if any. */
    const pruned = (organizationId: number) =>
      Effect.map(
        direct.first<{ readonly through_seq: number }>(
          sql`SELECT through_seq FROM change_feed_pruned WHERE organization_id = ${organizationId}`
        ),
        (row) => row?.through_seq ?? null
      )

    /** Up to `size` changes of the organization after `after` and up to `upTo`, in `seq` order. */
    const page = (organizationId: number, after: number, upTo: number, size: number) =>
      direct.rows<ChangeRow>(sql`SELECT seq, type, action, entity_id, event_id, occurred_at FROM changes
          WHERE organization_id = ${organizationId} AND seq > ${after} AND seq <= ${upTo}
          ORDER BY seq LIMIT ${size}`)

    /** The oldest `size` changes of all organizations, from the front of the primary key. */
    const oldest = (size: number) =>
      direct.rows<{ readonly seq: number; readonly occurred_at: string }>(
        sql`SELECT seq, occurred_at FROM changes ORDER BY seq LIMIT ${size}`
      )

    /**
     * Deletes every change up to `seq` and raises each organization's retention mark to the
     * newest of its changes deleted, in the caller's transaction. Answers how many it deleted.
     */
    const deleteThrough = (seq: number) =>
      Effect.gen(function*() {
        const deleted = yield* direct.rows<{ readonly organization_id: number; readonly seq: number }>(
          sql`DELETE FROM changes WHERE seq <= ${seq} RETURNING organization_id, seq`
        )
        const marks = new Map<number, number>()
        for (const row of deleted) marks.set(row.organization_id, Math.max(marks.get(row.organization_id) ?? 0, row.seq))
        if (marks.size > 0) {
          yield* direct.run(sql`INSERT INTO change_feed_pruned ${
            sql.insert([...marks].map(([organizationId, through]) => ({ organization_id: organizationId, through_seq: through })))
          } ON CONFLICT (organization_id) DO UPDATE SET through_seq = excluded.through_seq
            WHERE excluded.through_seq > change_feed_pruned.through_seq`)
        }
        return deleted.length
      })

    /** The key cursors are sealed with (base64). */
    const cursorKey = Effect.map(
      direct.first<{ readonly cursor_key: string }>(sql`SELECT cursor_key FROM change_feed_key WHERE id = 1`),
      (row) => row?.cursor_key
    )

    return { insert, state, pruned, page, oldest, deleteThrough, cursorKey } as const
  })
}) {}
