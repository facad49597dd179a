/**
 * Uploaded CSV files waiting for the organizer's confirmation (`import_drafts`, migration 0014):
 * the import flow (Flow.ts) keeps the file here between its preview and the real import,
 * because a browser without scripts cannot send it again. This service owns the table.
 *
 * A draft belongs to one member (user) of one organization and one kind of import; it is found
 * only with all three and its random id, so nobody else can use (or learn of) it. It lives
 * `DRAFT_LIFETIME` at most: an upload deletes every draft past that age, and the same member's
 * earlier draft of the same kind (one waiting file per member and kind bounds the space uploads
 * take), and a confirmed or discarded import deletes its own (and, again, every draft past that age).
 * When no upload comes, the retention (`ImportDraftsRetentionLive`) deletes the drafts past that age
 * within a tenth of it (CONTRACT §18: nothing waits for the next upload to be deleted).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { Ids } from "../../Domain/Ids.js"
import type { OrganizationRowId } from "../../Domain/RowIds.js"
import { deleteInBatches, repeatedly, retentionPause } from "../../Runtime/Background.js"

export const DRAFT_LIFETIME = Duration.hours(1)
/** Drafts deleted by one statement of the retention (each may hold a file of up to 10 MiB). */
const PURGE_BATCH = 100

export interface DraftOwner {
  readonly organizationId: OrganizationRowId
  readonly userId: number
  /** The kind of import (`contacts`, `guests:<eventId>`): a draft of one kind is no other's. */
  readonly kind: string
}

export interface Draft {
  readonly id: string
  readonly filename: string
  readonly csv: string
  readonly createdAt: string
}

export class ImportDrafts extends Effect.Service<ImportDrafts>()("Convene/ImportDrafts", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const ids = yield* Ids

    /** The oldest creation time a live draft can have, now. */
    const liveSince = Effect.map(Clock.currentTimeMillis, (now) => ({
      now: new Date(now).toISOString(),
      since: new Date(now - Duration.toMillis(DRAFT_LIFETIME)).toISOString()
    }))

    /** Keeps an uploaded file for its owner; answers the draft's random id. */
    const save = Effect.fn("ImportDrafts.save")(function*(owner: DraftOwner, file: { readonly filename: string; readonly csv: string }) {
      const { now, since } = yield* liveSince
      const id = yield* ids.secret(24)
      yield* Effect.gen(function*() {
        yield* sql`DELETE FROM import_drafts WHERE created_at <= ${since}
                     OR (user_id = ${owner.userId} AND organization_id = ${owner.organizationId} AND kind = ${owner.kind})`
        yield* sql`INSERT INTO import_drafts (public_id, organization_id, user_id, kind, filename, csv, created_at)
                   VALUES (${id}, ${owner.organizationId}, ${owner.userId}, ${owner.kind}, ${file.filename}, ${file.csv}, ${now})`
      }).pipe(sql.withTransaction)
      return id
    }, Effect.orDie)

    /** The owner's live draft with this id, if any. */
    const find = Effect.fn("ImportDrafts.find")(function*(owner: DraftOwner, id: string) {
      const { since } = yield* liveSince
      const rows = yield* sql<{ readonly filename: string; readonly csv: string; readonly created_at: string }>`
        SELECT filename, csv, created_at FROM import_drafts
        WHERE public_id = ${id} AND organization_id = ${owner.organizationId} AND user_id = ${owner.userId}
          AND kind = ${owner.kind} AND created_at > ${since}`
      const row = rows[0]
      return row === undefined
        ? Option.none<Draft>()
        : Option.some<Draft>({ id, filename: row.filename, csv: row.csv, createdAt: row.created_at })
    }, Effect.orDie)

    /** Deletes the owner's draft (confirmed or discarded), and every draft past its lifetime. */
    const remove = Effect.fn("ImportDrafts.remove")(function*(owner: DraftOwner, id: string) {
      const { since } = yield* liveSince
      yield* sql`DELETE FROM import_drafts WHERE created_at <= ${since}
                   OR (public_id = ${id} AND organization_id = ${owner.organizationId} AND user_id = ${owner.userId} AND kind = ${owner.kind})`
    }, Effect.orDie)

    /** Deletes every draft past its lifetime, in batches; answers how many. */
    const purgeStale = Effect.flatMap(liveSince, ({ since }) =>
      deleteInBatches(PURGE_BATCH, (size) =>
        Effect.map(
          sql`DELETE FROM import_drafts WHERE id IN
                (SELECT id FROM import_drafts WHERE created_at <= ${since} ORDER BY created_at LIMIT ${size})
              RETURNING id`,
          (rows) => rows.length
        )))

    return { save, find, remove, purgeStale } as const
  }),
  dependencies: [Ids.Default]
}) {}

/** The drafts' retention: a fiber of the server's scope deletes the drafts past their lifetime (src/Runtime/Background.ts). */
export const ImportDraftsRetentionLive = Layer.scopedDiscard(Effect.gen(function*() {
  const drafts = yield* ImportDrafts
  const pass = drafts.purgeStale.pipe(
    Effect.tap((deleted) => deleted === 0 ? Effect.void : Effect.logDebug(`import drafts: ${deleted} past their lifetime deleted`))
  )
  yield* repeatedly("import drafts retention", pass, retentionPause(DRAFT_LIFETIME))
})).pipe(Layer.provide(ImportDrafts.Default))
