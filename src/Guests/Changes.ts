/**
 * What a guest-list write changes: the columns an update item sets on a guest, whether its RSVP or
 * attendance status really changed (for `EventPerson` notifications), and the summary of a whole
 * write that responses and the outbox are built from.
 */
import { blankToNull } from "../Domain/Fields.js"
import { emptyKeyed, parseKeyed } from "../Domain/Keyed.js"
import type { GuestRowId } from "../Domain/RowIds.js"
import type { EventRow } from "../Events/EventRow.js"
import { type ColumnValue, type Guest, type GuestUpdate, isColumnValues } from "./Domain.js"
import type { GuestRow, LinkRow } from "./GuestsRepo.js"

/** What a guest-list write did, for notifications (webhooks) and responses. */
export interface GuestListChange {
  readonly event: EventRow
  /** Guests as they are after the write (removed ones as they were when removed). */
  readonly guests: ReadonlyArray<Guest>
  readonly rows: ReadonlyArray<GuestRow>
  /** When the write happened. */
  readonly at: string
  /** The guests the write changed in any way (a new history entry included), in request order. */
  readonly affected: ReadonlyArray<GuestRowId>
  readonly added: number
  readonly updated: number
  readonly removed: number
  /** Guests whose rsvpStatus or attendanceStatus value really changed. */
  readonly statusChanges: ReadonlyArray<{
    readonly guestId: GuestRowId
    readonly previousStatus: string
    readonly rsvpStatus: string
    readonly attendanceChanged: boolean
    readonly rsvpChanged: boolean
  }>
}

export type StatusChange = GuestListChange["statusChanges"][number]

/** What a write did: the guests it affected, and how many it added, updated and removed (none unless given). */
export type WriteCounts =
  & Pick<GuestListChange, "affected">
  & Partial<Pick<GuestListChange, "added" | "updated" | "removed" | "statusChanges">>

/** A write's change: its event, its guests as loaded after it (`guests`, `rows`), when, and what it did. */
export const guestListChange = (
  event: EventRow,
  loaded: Pick<GuestListChange, "guests" | "rows">,
  at: string,
  did: WriteCounts
): GuestListChange => ({
  event,
  ...loaded,
  at,
  affected: did.affected,
  added: did.added ?? 0,
  updated: did.updated ?? 0,
  removed: did.removed ?? 0,
  statusChanges: did.statusChanges ?? []
})

/** The `event_guests` columns an update item sets, given the guest as it stands. */
export const columnChanges = (item: GuestUpdate, link: LinkRow): Record<string, string | null> => {
  const changes: Record<string, string | null> = {}
  if (item.rsvpStatus !== undefined) changes["rsvp_status"] = item.rsvpStatus
  if (item.attendanceStatus !== undefined) changes["attendance_status"] = item.attendanceStatus
  if (item.dietaryRestrictions !== undefined) {
    changes["dietary_restrictions"] = item.dietaryRestrictions === null ? null : JSON.stringify(item.dietaryRestrictions)
  }
  if (item.rsvpNote !== undefined) changes["rsvp_note"] = blankToNull(item.rsvpNote)
  if (item.customColumns !== undefined) {
    const merged = link.custom_columns === null ? emptyKeyed<ColumnValue>() : parseKeyed(link.custom_columns, isColumnValues, "custom columns")
    for (const [title, value] of Object.entries(item.customColumns)) {
      if (value === null) delete merged[title]
      else merged[title] = value
    }
    changes["custom_columns"] = Object.keys(merged).length === 0 ? null : JSON.stringify(merged)
  }
  return changes
}

type Statuses = Pick<LinkRow, "rsvp_status" | "attendance_status">

/** The guest's status change between two states, if its RSVP or attendance value differs. */
export const statusChange = (guestId: GuestRowId, before: Statuses, after: Statuses): Array<StatusChange> => {
  const rsvpChanged = after.rsvp_status !== before.rsvp_status
  const attendanceChanged = after.attendance_status !== before.attendance_status
  return rsvpChanged || attendanceChanged
    ? [{ guestId, previousStatus: before.rsvp_status, rsvpStatus: after.rsvp_status, rsvpChanged, attendanceChanged }]
    : []
}
