/**
 * Webhook notifications of guest-list writes (docs/integrators.md#notification-types), built here
 * from the guests as the API renders them (GuestPayloads.ts) and stored by the outbox inside the
 * write's transaction: one `GuestList` notification per write with the guests it affected, and an
 * `EventPerson` notification per guest whose RSVP or attendance status really changed. A guest-list
 * import makes the same notifications in batches (GuestsCsv.ts).
 */
import * as Effect from "effect/Effect"
import { AppConfig } from "../Config/AppConfig.js"
import type { GuestRowId, OrganizationRowId } from "../Domain/RowIds.js"
import { Outbox } from "../Webhooks/Outbox.js"
import type { GuestListChange } from "./Changes.js"
import { eventPersonBody, type GuestSnapshot, guestListBody, snapshotOf } from "./GuestPayloads.js"

export class GuestNotifications extends Effect.Service<GuestNotifications>()("Convene/GuestNotifications", {
  effect: Effect.gen(function*() {
    const outbox = yield* Outbox
    const { webhooks } = yield* AppConfig

    /** The change's guests by guest id. */
    const snapshotsOf = (change: GuestListChange) => {
      const snapshots = new Map<GuestRowId, GuestSnapshot>()
      change.rows.forEach((row, i) => snapshots.set(row.gid, snapshotOf(row, change.guests[i]!)))
      return snapshots
    }

    /** One `EventPerson` notification per guest whose rsvpStatus or attendanceStatus really changed. */
    const statusesChanged = (organizationId: OrganizationRowId, change: GuestListChange) =>
      change.statusChanges.length === 0 ? Effect.void : outbox.enqueue(organizationId, "EventPerson", () => {
        const snapshots = snapshotsOf(change)
        return change.statusChanges.flatMap((s) => {
          const snapshot = snapshots.get(s.guestId)
          return snapshot === undefined
            ? []
            : [eventPersonBody(webhooks.payloadVariant, change.event, snapshot, s.previousStatus, change.at)]
        })
      })

    /**
     * A guest-list write: one `GuestList` notification with the affected guests, and the
     * `EventPerson` notifications of the guests whose status changed.
     */
    const guestListChanged = (organizationId: OrganizationRowId, change: GuestListChange) =>
      Effect.gen(function*() {
        if (change.affected.length === 0) return
        // the bodies are built only if someone is subscribed to them
        yield* outbox.enqueue(organizationId, "GuestList", () => {
          const snapshots = snapshotsOf(change)
          const affected = change.affected.map((gid) => snapshots.get(gid) ?? null)
          return [
            guestListBody(webhooks.payloadVariant, change.event, affected, {
              added: change.added,
              removed: change.removed,
              updated: change.updated
            }, change.at)
          ]
        })
        yield* statusesChanged(organizationId, change)
      })

    return { guestListChanged, statusesChanged } as const
  }),
  dependencies: [Outbox.Default]
}) {}
