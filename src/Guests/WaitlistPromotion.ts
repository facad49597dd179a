/**
 * Waitlist promotion (CONTRACT §16): when a write frees places on an event with capacity, the
 * guests `Waitlisted` longest become `Accepted` (Waitlist.ts decides who), in the same
 * transaction, as a `PUT` of those statuses would make them: a history entry each (by `system`,
 * the event's id), the `GuestList` and `EventPerson` notifications, the change feed's entries.
 * Every writer of a guest's status calls `afterWrite` in its transaction once its own change is
 * published, and a capacity change calls `fill`. Writes are serialized (the write lock, src/Db),
 * so the count and the queue read here stay true until the commit: never past the capacity.
 */
import * as Effect from "effect/Effect"
import { Changes } from "../Changes/Changes.js"
import { guestChange } from "../Changes/Domain.js"
import type { GuestRowId } from "../Domain/RowIds.js"
import type { EventRow } from "../Events/EventRow.js"
import { PublicOrigin } from "../Runtime/PublicOrigin.js"
import { guestListChange } from "./Changes.js"
import { MAX_HISTORY_ENTRIES } from "./Domain.js"
import { GuestNotifications } from "./GuestNotifications.js"
import { GuestsRepo } from "./GuestsRepo.js"
import { renderGuests } from "./GuestView.js"
import { GuestStatusEmails } from "./StatusEmails.js"
import { promoted } from "./Waitlist.js"

/** Whether the event limits its places (a promotion has places to fill only then, or when it stops limiting). */
export const limitsPlaces = (event: EventRow) => event.capacity_enabled === 1 && event.capacity !== null

export class WaitlistPromotion extends Effect.Service<WaitlistPromotion>()("Convene/WaitlistPromotion", {
  effect: Effect.gen(function*() {
    const repo = yield* GuestsRepo
    const notifications = yield* GuestNotifications
    const changeFeed = yield* Changes
    const origin = yield* PublicOrigin
    const statusEmails = yield* GuestStatusEmails

    /**
     * Fills the event's free places from its waitlist, as it stands in the caller's transaction
     * (the event's capacity as `event` gives it: read in that transaction). Guests whose history is
     * full (Domain.ts `MAX_HISTORY_ENTRIES`) cannot take the entry and keep waiting. Answers the
     * guests promoted, in the order they took their places.
     */
    const fill = (event: EventRow, at: string) =>
      Effect.gen(function*() {
        const capacityEnabled = event.capacity_enabled === 1
        const accepted = capacityEnabled && event.capacity !== null ? yield* repo.acceptedCount(event.id) : 0
        if (capacityEnabled && event.capacity !== null && accepted >= event.capacity) return []
        const queue = (yield* repo.waiting(event.id)).filter((row) => row.history_entries < MAX_HISTORY_ENTRIES)
        const chosen = promoted({ capacityEnabled, capacity: event.capacity, accepted }, queue.map((row) => ({ guestId: row.id, since: row.since })))
        if (chosen.length === 0) return []
        for (const guestId of chosen) {
          yield* repo.update(guestId, { rsvp_status: "Accepted" }, at)
          yield* repo.addHistory({ guestId, status: "Accepted", actorType: "system", actorId: event.public_id, actionType: "updated", at })
        }
        const rows = yield* repo.byIds(chosen)
        const guests = renderGuests(rows, { event, role: "Viewer", rsvpLink: origin.rsvpLink, payments: undefined })
        const change = guestListChange(event, { guests, rows }, at, {
          affected: chosen,
          updated: chosen.length,
          statusChanges: chosen.map((guestId) => ({
            guestId,
            previousStatus: "Waitlisted",
            rsvpStatus: "Accepted",
            rsvpChanged: true,
            attendanceChanged: false
          }))
        })
        yield* notifications.guestListChanged(event.organization_id, change)
        yield* changeFeed.record(event.organization_id, rows.map((row) => guestChange("updated", row.public_id, event.public_id)))
        // each promoted guest gets an email with their ticket (CONTRACT §16, §17)
        yield* statusEmails.tell(event, chosen.map((guestId) => ({ guestId, news: { kind: "promoted", rsvpStatus: "Accepted" } as const })))
        return chosen
      })

    /** After a write of the event's guests: fills the places it freed (`freed`: a guest left `Accepted`), if the event limits them. */
    const afterWrite = (event: EventRow, freed: boolean, at: string) =>
      freed && limitsPlaces(event) ? fill(event, at) : Effect.succeed<ReadonlyArray<GuestRowId>>([])

    return { fill, afterWrite } as const
  }),
  dependencies: [GuestsRepo.Default, GuestNotifications.Default, Changes.Default, PublicOrigin.Default, GuestStatusEmails.Default]
}) {}
