/**
 * Sample notifications, in the configured variant: the EventPerson one `GET /webhook` shows, and
 * one of each type for test deliveries (`POST /webhook/test`). A made-up guest, Jane Doe, accepts
 * the invitation to a made-up event; the bodies come from the same builders as real notifications.
 * The webhooks' `Samples` (Webhooks/Samples.ts), answered here, above both builders' features.
 */
import * as Layer from "effect/Layer"
import type { PayloadVariant } from "../Config/AppConfig.js"
import { eventUpdatedBody } from "../Events/EventPayload.js"
import { defaults, toEvent } from "../Events/EventMapping.js"
import { EventRowId, OrganizationRowId } from "../Domain/RowIds.js"
import type { EventRow } from "../Events/EventRow.js"
import { eventPersonBody, type GuestSnapshot, guestListBody } from "./GuestPayloads.js"
import type { WebhookType } from "../Webhooks/Domain.js"
import { Samples } from "../Webhooks/Samples.js"

const at = "2030-05-01T17:30:00.000Z"

const event: EventRow = {
  id: EventRowId(0),
  public_id: "00000000-0000-4000-8000-000000000001",
  organization_id: OrganizationRowId(0),
  name: "Sample Summer Gala",
  slug: "sample-summer-gala",
  primary_date: "2030-06-01T20:00:00+02:00",
  primary_date_utc: "2030-06-01T18:00:00.000Z",
  ...defaults,
  timezone: "Europe/Paris",
  is_public: 1,
  location_name: "Grand Hall",
  location_address: "1 Example Street",
  location_city: "Paris",
  location_postal_code: "75001",
  location_country: "FR",
  custom_columns: JSON.stringify(["Table"]),
  calendar_sequence: 0,
  updated_at: at
}

const personId = "00000000-0000-4000-8000-000000000002"

const snapshot: GuestSnapshot = {
  guest: {
    personId,
    firstName: "Jane",
    lastName: "Doe",
    name: "Jane Doe",
    email: "jane.doe@example.com",
    phone: null,
    smsConsent: null,
    rsvpStatus: "Accepted",
    rsvpStatusHistory: [],
    dietaryRestrictions: ["vegetarian"],
    attendanceStatus: null,
    rsvpQuestionResponses: [],
    rsvpNote: "Looking forward to it",
    customColumns: { Table: "7" },
    rsvpLink: "https://convene.example/rsvp/sample-summer-gala?invite=sample"
  },
  history: [
    { status: "Invited", actorId: "sample", actorType: "apiKey", actionType: "added", createdAt: "2030-05-01T09:00:00.000Z" },
    { status: "Accepted", actorId: personId, actorType: "eventPerson", actionType: "updated", createdAt: at }
  ],
  company: "Example Inc",
  position: "Director"
}

/** Jane Doe accepted: her RSVP status changed from Invited. */
const sampleEventPerson = (variant: PayloadVariant): unknown => eventPersonBody(variant, event, snapshot, "Invited", at)

/** The guest-list write of that answer: one guest updated. */
const sampleGuestList = (variant: PayloadVariant): unknown =>
  guestListBody(variant, event, [snapshot], { added: 0, removed: 0, updated: 1 }, at)

/** An edit of the event that changed its name and date (Event bodies have one shape in both variants). */
const sampleEvent = (): unknown => eventUpdatedBody(toEvent(event, "Admin", []), ["name", "primaryDate"], at)

/** A sample notification of each type, as a real one of that type would be sent. */
const samples: Record<WebhookType, (variant: PayloadVariant) => unknown> = {
  EventPerson: sampleEventPerson,
  GuestList: sampleGuestList,
  Event: sampleEvent
}

export const WebhookSamplesLive = Layer.succeed(Samples, { of: (type, variant) => samples[type](variant) })
