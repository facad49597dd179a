/**
 * Streamed answers (guest lists, CSV exports: CONTRACT §18 "Streamed answers"), each read from a
 * database snapshot held while its client reads: a read-only connection of its own on SQLite, a
 * pooled connection on PostgreSQL (`DirectSql.snapshot`). The server holds at most
 * `DirectSql.snapshotCapacity` of them at once, and one organization at most half of that
 * (`perOrganization`): while one organization's clients hold theirs, however slowly they read,
 * another organization's answers start at once. Every streamed answer that reads a snapshot takes
 * its share here, with the caller's organization: the database layer knows no organizations.
 *
 * A share is taken before the answer's first byte, waiting at most `STREAM_WAIT` (an
 * organization's own answers over its share wait for one of its own to end; a client that reads
 * nothing is cut off after `STREAM_IDLE_TIMEOUT`, Http/JsonStream.ts), else 503 `unavailable`
 * with `Retry-After`; it is given back with the request's scope, when the answer ends or its
 * client leaves.
 */
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type * as Stream from "effect/Stream"
import type * as SqlError from "@effect/sql/SqlError"
import { DirectSql } from "../Db/DirectSql.js"
import type { OrganizationRowId } from "../Domain/RowIds.js"
import { type Busy, BusyTypeId } from "./Errors.js"
import { makeFairShares } from "./FairShares.js"

/** How long a streamed answer waits for a share before it is refused. */
export const STREAM_WAIT = Duration.seconds(20)

/** Every share this answer could take stayed held for `STREAM_WAIT`: 503 with `Retry-After` (Http/ErrorMapping.ts, Web.guarded). */
export class StreamsBusy extends Data.TaggedError("StreamsBusy")<{}> implements Busy {
  readonly [BusyTypeId]: BusyTypeId = BusyTypeId
  /** Seconds after which trying again is sensible. */
  readonly retryAfter = 5
  override readonly message = "Other downloads are running; try again shortly"
}

/** An organization's share of `capacity` streamed answers: half, at least one. */
export const perOrganization = (capacity: number) => Math.max(1, Math.floor(capacity / 2))

export class StreamSlots extends Effect.Service<StreamSlots>()("Convene/StreamSlots", {
  effect: Effect.gen(function*() {
    const direct = yield* DirectSql
    const capacity = direct.snapshotCapacity
    const shares = makeFairShares<OrganizationRowId>(capacity, perOrganization(capacity))

    /**
     * `stream` read from one snapshot (`DirectSql.snapshot`), once `organizationId` has a share of
     * the streamed answers: the share is held until the request's scope closes. No share free
     * within `STREAM_WAIT` is a defect, `StreamsBusy`, which the edges answer 503.
     */
    const snapshot = <A, E, R>(
      organizationId: OrganizationRowId,
      stream: Stream.Stream<A, E, R>
    ): Effect.Effect<Stream.Stream<A, E | SqlError.SqlError, R>, never, Scope.Scope> =>
      Effect.as(Effect.orDie(shares.take(organizationId, STREAM_WAIT, () => new StreamsBusy())), direct.snapshot(stream))

    return {
      snapshot,
      capacity,
      /** Shares held now, by `organizationId` or in all (for tests). */
      held: (organizationId?: OrganizationRowId) => shares.held(organizationId)
    } as const
  })
}) {}
