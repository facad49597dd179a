/**
 * The notifications of a guest-list import (GuestsCsv.ts), in its transaction, as one guest-list
 * write makes them: ONE `GuestList` notification for the whole import carrying every affected
 * guest (each guest put on the list, and each guest on it already that the import changed, a new
 * history entry included), and an `EventPerson` notification for each guest whose RSVP or
 * attendance value really changed, compared with the guest as it was before (a guest the import
 * puts on the list starts as `Invited`, as after a guest-list add). Guests are loaded for them in
 * batches, and only when a webhook is registered for that type.
 */
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { AppConfig } from "../Config/AppConfig.js"
import { inSlices, yieldToEventLoop } from "../Csv/Chunks.js"
import type { Caller } from "../Domain/Caller.js"
import type { GuestRowId } from "../Domain/RowIds.js"
import type { EventRow } from "../Events/EventRow.js"
import { PublicOrigin } from "../Runtime/PublicOrigin.js"
import { jsonArray, Outbox } from "../Webhooks/Outbox.js"
import type { GuestPlan, PlannedGuest } from "./GuestImportPlan.js"
import { MATCH_BATCH } from "./GuestImportStatements.js"
import { eventPersonBody, type GuestSnapshot, guestListBody, snapshotOf } from "./GuestPayloads.js"
import { GuestsRepo } from "./GuestsRepo.js"
import { renderGuests } from "./GuestView.js"

/** Guests loaded (and rendered) at once for an import's notifications. */
const NOTIFY_BATCH = 250

export class GuestImportNotifications extends Effect.Service<GuestImportNotifications>()("Convene/GuestImportNotifications", {
  effect: Effect.gen(function*() {
    const repo = yield* GuestsRepo
    const origin = yield* PublicOrigin
    const outbox = yield* Outbox
    const config = yield* AppConfig

    /** A guest as notifications describe it, after the write: rendered as the API renders it. */
    const snapshotsOf = (caller: Caller, event: EventRow, guestIds: ReadonlyArray<GuestRowId>) =>
      Effect.map(repo.byIds(guestIds), (rows) => {
        const guests = renderGuests(rows, { event, role: caller.role, rsvpLink: origin.rsvpLink, payments: undefined })
        return new Map(rows.map((row, i): [GuestRowId, GuestSnapshot] => [row.gid, snapshotOf(row, guests[i]!)]))
      })

    /**
     * The import's notifications (see the top of this file), inside its transaction. Guests are
     * loaded only for the webhook types someone is registered for.
     */
    const notify = (caller: Caller, event: EventRow, plan: GuestPlan, at: string) =>
      Effect.gen(function*() {
        const affected = plan.guests.filter((g) => g.changed)
        if (affected.length === 0) return
        const variant = config.webhooks.payloadVariant
        const listeners = yield* outbox.subscribed(caller.organizationId, "GuestList")
        const watchers = yield* outbox.subscribed(caller.organizationId, "EventPerson")
        const counts = {
          added: affected.filter((g) => g.mode !== "listed").length,
          removed: 0,
          updated: affected.filter((g) => g.mode === "listed").length
        }
        if (listeners && variant === "envelopes") {
          yield* outbox.enqueue(caller.organizationId, "GuestList", [guestListBody(variant, event, [], counts, at)])
        }
        const records = listeners && variant === "records"
        if (!records && !watchers) return
        // the ids of the guests the import put on the list; the others' are known
        const fresh = new Map<string, GuestRowId>()
        yield* inSlices(affected.filter((g) => g.link === undefined).map((g) => g.emailKey), MATCH_BATCH, (slice) =>
          Effect.map(repo.guestIdsByEmailKeys(event.id, caller.organizationId, slice), (rows) => {
            for (const row of rows) fresh.set(row.email_key, row.id)
          }))
        const guestIdOf = (guest: PlannedGuest) => guest.link?.id ?? fresh.get(guest.emailKey)!
        // a batch of guests at a time for both types; the GuestList body (a JSON array) is serialized
        // batch by batch and stored as it comes (Webhooks/Outbox.ts), never held whole
        const slices: Array<ReadonlyArray<PlannedGuest>> = []
        for (let start = 0; start < affected.length; start += NOTIFY_BATCH) slices.push(affected.slice(start, start + NOTIFY_BATCH))
        const batches = Stream.mapEffect(Stream.fromIterable(slices), (slice) =>
          Effect.gen(function*() {
            const snapshots = yield* snapshotsOf(caller, event, slice.map(guestIdOf))
            if (watchers) {
              const bodies = slice.flatMap((g) => {
                const snapshot = snapshots.get(guestIdOf(g))
                const moved = g.values.rsvp_status !== g.start.rsvp_status || g.values.attendance_status !== g.start.attendance_status
                return snapshot === undefined || !moved
                  ? []
                  : [eventPersonBody(variant, event, snapshot, g.start.rsvp_status, at)]
              })
              yield* outbox.enqueue(caller.organizationId, "EventPerson", bodies)
            }
            yield* yieldToEventLoop
            return records
              ? guestListBody(variant, event, slice.map((g) => snapshots.get(guestIdOf(g)) ?? null), counts, at) as ReadonlyArray<unknown>
              : []
          }))
        if (records) yield* outbox.enqueueSerialized(caller.organizationId, "GuestList", jsonArray(batches))
        else yield* Stream.runDrain(batches)
      })

    return { notify } as const
  }),
  dependencies: [GuestsRepo.Default, PublicOrigin.Default, Outbox.Default]
}) {}
