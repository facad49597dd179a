/**
 * How many CSV imports this process runs at once. An import holds its file (up to 10 MiB), its
 * rows and its plan in memory while it runs: twelve dry runs of a 10 MiB file at once took the
 * server past its 256 MB heap, and out. So at most `IMPORT_SLOTS` run at a time, and one
 * organization holds at most one of them (CONTRACT §18): the next ones wait for a slot, at most
 * `IMPORT_WAIT`, and are then answered 503 with `Retry-After` (nothing changed).
 *
 * An import takes its slot only once its body has arrived, so that a client sending its file
 * slowly holds nothing but its own connection (its body is bounded in time: Http/JsonBody.ts): an
 * API import in its handler, after the payload is decoded (Persons/Http.ts, Guests/Http.ts), the
 * dashboard's upload once its form is read and its CSRF token checked, and its preview and import
 * steps around their own work (Web/ImportFlow.ts). The import services themselves take none, so
 * no request ever holds two.
 */
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Scope from "effect/Scope"
import type { OrganizationRowId } from "../Domain/RowIds.js"
import { type Busy, BusyTypeId } from "../Http/Errors.js"
import { makeFairShares } from "../Http/FairShares.js"

export const IMPORT_SLOTS = 2
/** Slots one organization may hold at once. */
export const IMPORT_SLOTS_PER_ORGANIZATION = 1
export const IMPORT_WAIT = Duration.seconds(20)

/** Every slot this import could take stayed taken for `IMPORT_WAIT`. */
export class ImportsBusy extends Data.TaggedError("ImportsBusy")<{}> implements Busy {
  readonly [BusyTypeId]: BusyTypeId = BusyTypeId
  /** Seconds after which trying again is sensible. */
  readonly retryAfter = 5
  override readonly message = "Other imports are running; try again shortly"
}

export class ImportSlots extends Effect.Service<ImportSlots>()("Convene/ImportSlots", {
  effect: Effect.sync(() => {
    const shares = makeFairShares<OrganizationRowId>(IMPORT_SLOTS, IMPORT_SLOTS_PER_ORGANIZATION)
    /**
     * Runs `effect` in a slot of `organizationId`, once one is free within `IMPORT_WAIT`; the slot
     * is freed however it ends.
     */
    const run = <A, E, R>(organizationId: OrganizationRowId, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | ImportsBusy, R> =>
      Effect.scopedWith((scope) =>
        Effect.zipRight(Scope.extend(shares.take(organizationId, IMPORT_WAIT, () => new ImportsBusy()), scope), effect))
    /** Slots held now (by `organizationId`, or in all). */
    const held = (organizationId?: OrganizationRowId) => shares.held(organizationId)
    return { run, held } as const
  })
}) {}
