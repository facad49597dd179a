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
 *   transactions running side by side could take 10 and 11 and commit 11 first; a reader that saw
 *   11 would move past 10 for good. They do not run side by side: every write transaction begins
 *   by taking the one global write lock (Db/Postgres.ts), held to its commit, so write transactions
 *   run one after another as on SQLite and `seq` is taken in commit order again. A recording made
 *   outside any transaction would not take that lock, so `insert` opens a transaction of its own
 *   then, on either engine (the callers all record inside their write's transaction,
 *   `Changes.record`).
 * The engines differ only in the JSON table the batch is read from (`Dialect.rows` with `at`,
 * `ORDER BY j.key`: the array's order); `RETURNING` and `ON CONFLICT ... DO UPDATE ... WHERE`
 * read the same on both.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { dialectOf } from "../Db/Dialect.js"
import { DirectSql } from "../Db/DirectSql.js"
import { type ChangeEntry, changeActions, changeTypes } from "./Domain.js"
import { rowIdColumn, type OrganizationRowId } from "../Domain/RowIds.js"

/** Changes per INSERT statement: an import of 50,000 rows records its 100,000 changes in 20 statements. */
export const RECORD_BATCH = 5_000

export const ChangeRow = Schema.Struct({
  seq: Schema.Number,
  type: Schema.Literal(...changeTypes),
  action: Schema.Literal(...changeActions),
  entity_id: Schema.String,
  event_id: Schema.NullOr(Schema.String),
  occurred_at: Schema.String
})
export type ChangeRow = typeof ChangeRow.Type

/** Where an organization's feed stands: its newest change and the newest change retention deleted. */
export const FeedState = Schema.Struct({ head: Schema.NullOr(Schema.Number), pruned: Schema.NullOr(Schema.Number) })
export type FeedState = typeof FeedState.Type

const Through = Schema.Struct({ through_seq: Schema.Number })
const Oldest = Schema.Struct({ seq: Schema.Number, occurred_at: Schema.String })
const Deleted = Schema.Struct({ organization_id: rowIdColumn.organization, seq: Schema.Number })
const CursorKey = Schema.Struct({ cursor_key: Schema.String })

export class ChangesRepo extends Effect.Service<ChangesRepo>()("Convene/ChangesRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const direct = yield* DirectSql
    const d = dialectOf(sql)

    const insertBatches = (organizationId: OrganizationRowId, at: string, entries: ReadonlyArray<ChangeEntry>) =>
      Effect.forEach(
        Array.from({ length: Math.ceil(entries.length / RECORD_BATCH) }, (_, i) => entries.slice(i * RECORD_BATCH, (i + 1) * RECORD_BATCH)),
        (batch) =>
          direct.run(sql`INSERT INTO changes (organization_id, type, action, entity_id, event_id, occurred_at)
              SELECT ${organizationId}, ${d.at(0)}, ${d.at(1)}, ${d.at(2)}, ${d.at(3)}, ${at}
              FROM ${d.rows(JSON.stringify(batch.map((e) => [e.type, e.action, e.id, e.eventId ?? null])))}
              ORDER BY j.key`),
        { discard: true }
      )

    /**
     * Records changes in `seq` order as given, in one statement per `RECORD_BATCH`, inside the
     * write's transaction (one of its own when there is none: see above).
     */
    const insert = (organizationId: OrganizationRowId, at: string, entries: ReadonlyArray<ChangeEntry>) =>
      Effect.flatMap(
        Effect.serviceOption(SqlClient.TransactionConnection),
        (transaction) =>
          transaction._tag === "Some"
            ? insertBatches(organizationId, at, entries)
            : sql.withTransaction(insertBatches(organizationId, at, entries))
      )

    /** The organization's head and retention mark, in one statement. */
    const state = (organizationId: OrganizationRowId) =>
      Effect.map(
        direct.first(FeedState, sql`SELECT
            (SELECT max(seq) FROM changes WHERE organization_id = ${organizationId}) AS head,
            (SELECT through_seq FROM change_feed_pruned WHERE organization_id = ${organizationId}) AS pruned`),
        (row): FeedState => ({ head: row?.head ?? null, pruned: row?.pruned ?? null })
      )

    /** The newest change of the organization that retention deleted, if any. */
    const pruned = (organizationId: OrganizationRowId) =>
      Effect.map(
        direct.first(
          Through,
          sql`SELECT through_seq FROM change_feed_pruned WHERE organization_id = ${organizationId}`
        ),
        (row) => row?.through_seq ?? null
      )

    /** Up to `size` changes of the organization after `after` and up to `upTo`, in `seq` order. */
    const page = (organizationId: OrganizationRowId, after: number, upTo: number, size: number) =>
      direct.rows(ChangeRow, sql`SELECT seq, type, action, entity_id, event_id, occurred_at FROM changes
          WHERE organization_id = ${organizationId} AND seq > ${after} AND seq <= ${upTo}
          ORDER BY seq LIMIT ${size}`)

    /** The oldest `size` changes of all organizations, from the front of the primary key. */
    const oldest = (size: number) =>
      direct.rows(
        Oldest,
        sql`SELECT seq, occurred_at FROM changes ORDER BY seq LIMIT ${size}`
      )

    /**
     * Deletes every change up to `seq` and raises each organization's retention mark to the
     * newest of its changes deleted, in the caller's transaction. Answers how many it deleted.
     */
    const deleteThrough = (seq: number) =>
      Effect.gen(function*() {
        const deleted = yield* direct.rows(
          Deleted,
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
      direct.first(CursorKey, sql`SELECT cursor_key FROM change_feed_key WHERE id = 1`),
      (row) => row?.cursor_key
    )

    return { insert, state, pruned, page, oldest, deleteThrough, cursorKey } as const
  })
}) {}
