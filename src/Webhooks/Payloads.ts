/**
 * Notification bodies (docs/integrators.md#payloads), in both variants, built from the
 * guest model the REST API renders: variant A (`records`) sends full guest records, variant B
 * (`envelopes`) sends action envelopes.
 */
import type { PayloadVariant } from "../Config/AppConfig.js"
import { parseJson } from "../Domain/Json.js"
import type { EventRow } from "../Events/EventsRepo.js"
import type { Guest } from "../Guests/Domain.js"
import type { GuestRow } from "../Guests/GuestsRepo.js"
import type { HistoryEntryView } from "../Guests/GuestView.js"

export type WebhookType = "EventPerson" | "Event" | "GuestList"

export interface GuestSnapshot {
  readonly guest: Guest
  readonly row: GuestRow
  readonly history: ReadonlyArray<HistoryEntryView>
}

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
  virtualLocations: parseJson<ReadonlyArray<unknown>>(event.virtual_locations),
  type: "event"
})

/** The guest fields of a variant A record, shared by EventPerson and GuestList bodies. */
const guestFields = (event: EventRow, { guest, history, row }: GuestSnapshot) => ({
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
  company: row.company,
  position: row.position,
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

export const eventBody = (event: EventRow, updatedFields: ReadonlyArray<string>, timestamp: string): unknown => ({
  eventId: event.public_id,
  action: "event_updated",
  data: { name: event.name, primaryDate: event.primary_date, updatedFields, timestamp }
})
