/**
 * The change feed (docs/integrators.md#syncing-with-the-change-feed). Every write to a person, an
 * event or a guest records what it changed with `record`, in its own transaction, so a change is
 * in the feed exactly when the write committed. `feed` reads an organization's changes in commit
 * order after a cursor; `prune` deletes what is older than the retention (Changes/Retention.ts).
 *
 * Why paging never skips nor repeats a change, also under concurrent writers: within an
 * organization `seq` order is commit order (ChangesRepo.ts says how each engine keeps it). A page
 * reads the organization's head first, then changes after the cursor up to that head only: every
 * change up to the head is committed by then, so none can appear later behind the cursor the page
 * hands out, which is the last change it returned, or the head itself when nothing more is
 * waiting. Retention deletes only the oldest changes and records per organization the newest one it
 * deleted: a cursor below that mark (checked after the page is read) missed a change and is told so
 * with 410 instead of being answered a page with a hole.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type { Caller } from "../Domain/Caller.js"
import { nowIso } from "../Domain/Time.js"
import { CursorExpired, InvalidRequest } from "../Domain/Errors.js"
import { type ChangeRow, ChangesRepo, type FeedState } from "./ChangesRepo.js"
import { decodeCursor, encodeCursors } from "./Cursor.js"
import { type Change, type ChangeEntry, type ChangesPage, type ChangeType, changeTypes, DEFAULT_LIMIT } from "./Domain.js"
import type { OrganizationRowId } from "../Domain/RowIds.js"

/**
 * Changes a page filtered by `types` looks at, at most: the page may then hold fewer changes than
 * its limit (even none) while `hasMore` is true, and the cost of a request stays bounded however
 * rare the wanted types are.
 */
const SCAN_WINDOW = 5_000
/** Changes deleted per retention statement (from the oldest). */
const PRUNE_BATCH = 5_000

export interface FeedParams {
  readonly after?: string | undefined
  readonly limit?: number | undefined
  readonly types?: ReadonlyArray<ChangeType> | undefined
}

const expired = new CursorExpired({
  message: "The cursor is older than the changes the feed keeps: start again without after, and reconcile with the list endpoints"
})

/**
 * A cursor outside what the organization's feed holds: below the retention mark (changes after it
 * were deleted), or past anything the feed ever held (a database restored from an older backup).
 */
const outside = (after: number, state: FeedState) =>
  after < (state.pruned ?? 0) || after > Math.max(state.head ?? 0, state.pruned ?? 0)

export class Changes extends Effect.Service<Changes>()("Convene/Changes", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* ChangesRepo
    /**
     * The key that seals cursors, read once it is first needed and kept once read. Not
     * `Effect.cached`, which would keep a failure too: one read that met the database restarting
     * (or no connection free) would fail every feed request until the process restarts.
     */
    let sealingKey: Buffer | undefined
    const key = Effect.suspend(() =>
      sealingKey !== undefined ? Effect.succeed(sealingKey) : Effect.flatMap(repo.cursorKey.pipe(Effect.orDie), (text) =>
        text === undefined
          ? Effect.dieMessage("the change feed has no cursor key (migration 0015)")
          : Effect.sync(() => (sealingKey = Buffer.from(text, "base64"))))
    )

    /**
     * Records changes of one organization, in the given order. Run it inside the write's
     * transaction (whose write lock keeps `seq` in commit order on both engines, ChangesRepo.ts):
     * a write that rolls back records nothing. One statement per batch of thousands, whatever the
     * size of the write.
     */
    const record = (organizationId: OrganizationRowId, entries: ReadonlyArray<ChangeEntry>) =>
      entries.length === 0 ? Effect.void : Effect.flatMap(nowIso, (at) => repo.insert(organizationId, at, entries))

    const toChanges = (caller: Caller, sealing: Buffer, rows: ReadonlyArray<ChangeRow>): Array<Change> => {
      const cursors = encodeCursors(sealing, caller.organizationId, rows.map((r) => r.seq))
      return rows.map((row, i) => {
        const change: { -readonly [K in keyof Change]: Change[K] } = {
          cursor: cursors[i]!,
          type: row.type,
          action: row.action,
          id: row.entity_id,
          occurredAt: row.occurred_at
        }
        if (row.event_id !== null) change.eventId = row.event_id
        return change
      })
    }

    /** A page of the caller's organization's changes after `after` (from the oldest one kept without it). */
    const feed = Effect.fn("Changes.feed")(function*(caller: Caller, params: FeedParams) {
      const organizationId = caller.organizationId
      const limit = params.limit ?? DEFAULT_LIMIT
      const wanted = params.types === undefined || changeTypes.every((t) => params.types!.includes(t)) ? undefined : new Set(params.types)
      const sealing = yield* key
      const after = params.after === undefined ? undefined : decodeCursor(sealing, organizationId, params.after)
      if (params.after !== undefined && after === undefined) {
        return yield* InvalidRequest.at("after", "is not a cursor of this feed: pass a nextCursor or cursor as it was given")
      }
      const state = yield* repo.state(organizationId).pipe(Effect.orDie)
      if (after !== undefined && outside(after, state)) return yield* expired
      const start = after ?? state.pruned ?? 0
      const head = Math.max(start, state.head ?? start)
      const window = wanted === undefined ? limit + 1 : Math.max(limit + 1, SCAN_WINDOW)
      const rows = head > start ? yield* repo.page(organizationId, start, head, window).pipe(Effect.orDie) : []
      // retention may have deleted changes after the cursor while the page was read
      if (after !== undefined && after < ((yield* repo.pruned(organizationId).pipe(Effect.orDie)) ?? 0)) return yield* expired
      const matching = wanted === undefined ? rows : rows.filter((row) => wanted.has(row.type))
      const page = matching.slice(0, limit)
      const [next, hasMore] = matching.length > limit
        ? [page[limit - 1]!.seq, true]
        : rows.length === window
        ? [rows[window - 1]!.seq, true]
        : [head, false]
      const [nextCursor] = encodeCursors(sealing, organizationId, [next])
      const answer: ChangesPage = { changes: toChanges(caller, sealing, page), nextCursor: nextCursor!, hasMore }
      return answer
    })

    /**
     * Deletes the changes older than `retention`, oldest first, in transactions of `PRUNE_BATCH`,
     * stopping at the first change young enough to keep. Answers how many it deleted.
     */
    const prune = (retention: Duration.Duration) =>
      Effect.gen(function*() {
        const cutoff = new Date((yield* Clock.currentTimeMillis) - Duration.toMillis(retention)).toISOString()
        let deleted = 0
        for (;;) {
          const oldest = yield* repo.oldest(PRUNE_BATCH)
          let old = 0
          while (old < oldest.length && oldest[old]!.occurred_at < cutoff) old++
          if (old === 0) return deleted
          deleted += yield* repo.deleteThrough(oldest[old - 1]!.seq).pipe(sql.withTransaction)
          if (old < oldest.length || oldest.length < PRUNE_BATCH) return deleted
          yield* Effect.yieldNow()
        }
      })

    return { record, feed, prune } as const
  }),
  dependencies: [ChangesRepo.Default]
}) {}
