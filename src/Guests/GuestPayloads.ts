/**
 * The bodies of guest notifications, `GuestList` and `EventPerson` (docs/integrators.md#payloads),
 * in both variants: `records` sends full guest records, `envelopes` action envelopes. A record is
 * the guest as the API renders it, with what the API's guest leaves out: the history's action
 * types, the person's company and position, and the event.
 */
import type { PayloadVariant } from "../Config/AppConfig.js"
import { virtualLocationsOf } from "../Events/EventJson.js"
import type { EventRow } from "../Events/EventRow.js"
import type { Guest } from "./Domain.js"
import type { GuestRow } from "./GuestsRepo.js"
import { type HistoryEntryView, historyOf } from "./GuestView.js"

/** A guest as its notifications describe it, after the write. */
export interface GuestSnapshot {
  /** As the API renders it. */
  readonly guest: Guest
  /** Its RSVP history, oldest first, with action types. */
  readonly history: ReadonlyArray<HistoryEntryView>
  /** Its person's company and position. */
  readonly company: string | null
  readonly position: string | null
}

/** The snapshot of a guest: its row and the guest the API renders from it. */
export const snapshotOf = (row: GuestRow, guest: Guest): GuestSnapshot => ({
  guest,
  history: historyOf(row),
  company: row.company,
  position: row.position
})

const eventObject = (event: EventRow) => ({
  _id: event.public_id,
  id: event.public_id,
  name: event.name,
  locationName: event.location_name,
  primaryDate: event.primary_date,
  locationAddress: event.location_address,
  locationApartment: event.location_apartment,
  locationCity: event.location_city,
  locationState: event.location_state,
  locationPostalCode: event.location_postal_code,
  locationCountry: event.location_country,
  virtualLocations: virtualLocationsOf(event),
  type: "event"
})

/** The guest fields of a variant A record, shared by EventPerson and GuestList bodies. */
const guestFields = (event: EventRow, { company, guest, history, position }: GuestSnapshot) => ({
  eventName: event.name,
  eventId: event.public_id,
  event: eventObject(event),
  personId: guest.personId,
  firstName: guest.firstName,
  lastName: guest.lastName,
  name: guest.name,
  email: guest.email,
  rsvpStatus: guest.rsvpStatus,
  rsvpStatusHistory: history.map((h) => ({
    status: h.status,
    actorType: h.actorType,
    actionType: h.actionType,
    createdAt: h.createdAt
  })),
  rsvpHardBlockedAt: null,
  company,
  position,
  dietaryRestrictions: guest.dietaryRestrictions,
  attendanceStatus: guest.attendanceStatus,
  rsvpQuestionResponses: guest.rsvpQuestionResponses,
  rsvpNote: guest.rsvpNote,
  customColumns: guest.customColumns,
  rsvpLink: guest.rsvpLink
})

/** Variant A EventPerson record: `events` and `email3` first, then the guest fields. */
export const eventPersonRecord = (event: EventRow, snapshot: GuestSnapshot) => ({
  events: [event.name, event.primary_date],
  email3: snapshot.guest.email,
  ...guestFields(event, snapshot)
})

/** An `EventPerson` body: a guest whose RSVP or attendance status changed from `previousStatus`. */
export const eventPersonBody = (
  variant: PayloadVariant,
  event: EventRow,
  snapshot: GuestSnapshot,
  previousStatus: string,
  timestamp: string
): unknown =>
  variant === "records"
    ? [eventPersonRecord(event, snapshot)]
    : {
      eventId: event.public_id,
      personId: snapshot.guest.personId,
      action: "rsvp_updated",
      data: { rsvpStatus: snapshot.guest.rsvpStatus, previousStatus, timestamp }
    }

/** A `GuestList` body: one write's affected guests (null where one is not known), or its counts. */
export const guestListBody = (
  variant: PayloadVariant,
  event: EventRow,
  snapshots: ReadonlyArray<GuestSnapshot | null>,
  counts: { readonly added: number; readonly removed: number; readonly updated: number },
  timestamp: string
): unknown =>
  variant === "records"
    ? snapshots.map((s) => (s === null ? null : guestFields(event, s)))
    : {
      eventId: event.public_id,
      action: "guestlist_updated",
      data: { addedCount: counts.added, removedCount: counts.removed, updatedCount: counts.updated, timestamp }
    }
