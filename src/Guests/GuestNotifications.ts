/**
 * Webhook notifications of guest-list writes (docs/integrators.md#notification-types), built here
 * from the guests as the API renders them (GuestPayloads.ts) and stored by the outbox inside the
 * write's transaction: one `GuestList` notification per write with the guests it affected, and an
 * `EventPerson` notification per guest whose RSVP or attendance status really changed. A guest-list
 * import makes the same notifications in batches (GuestImportNotifications.ts).
 */
import * as Effect from "effect/Effect"
import { AppConfig } from "../Config/AppConfig.js"
import type { GuestRowId, OrganizationRowId } from "../Domain/RowIds.js"
import { type Notification, Outbox } from "../Webhooks/Outbox.js"
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

    /** The change's guests by guest id, made once however many notifications need them. */
    const snapshotsOnce = (change: GuestListChange) => {
      let snapshots: Map<GuestRowId, GuestSnapshot> | undefined
      return () => (snapshots ??= snapshotsOf(change))
    }

    /** One `EventPerson` notification per guest whose rsvpStatus or attendanceStatus really changed. */
    const statusBodies = (change: GuestListChange, snapshots: () => Map<GuestRowId, GuestSnapshot>) => () => {
      const byGuest = snapshots()
      return change.statusChanges.flatMap((s) => {
        const snapshot = byGuest.get(s.guestId)
        return snapshot === undefined
          ? []
          : [eventPersonBody(webhooks.payloadVariant, change.event, snapshot, s.previousStatus, change.at)]
      })
    }

    const statusesChanged = (organizationId: OrganizationRowId, change: GuestListChange) =>
      change.statusChanges.length === 0
        ? Effect.void
        : outbox.enqueue(organizationId, "EventPerson", statusBodies(change, snapshotsOnce(change)))

    /**
     * A guest-list write: one `GuestList` notification with the affected guests, and the
     * `EventPerson` notifications of the guests whose status changed; the registrations of both
     * types read at once, the bodies built only for a type someone is subscribed to.
     */
    const guestListChanged = (organizationId: OrganizationRowId, change: GuestListChange) => {
      if (change.affected.length === 0) return Effect.void
      const snapshots = snapshotsOnce(change)
      const guestList: Notification = ["GuestList", () => {
        const byGuest = snapshots()
        const affected = change.affected.map((gid) => byGuest.get(gid) ?? null)
        return [
          guestListBody(webhooks.payloadVariant, change.event, affected, {
            added: change.added,
            removed: change.removed,
            updated: change.updated
          }, change.at)
        ]
      }]
      return outbox.enqueueAll(
        organizationId,
        change.statusChanges.length === 0 ? [guestList] : [guestList, ["EventPerson", statusBodies(change, snapshots)]]
      )
    }

    return { guestListChanged, statusesChanged } as const
  }),
  dependencies: [Outbox.Default]
}) {}
