/** The sample notification `GET /webhook` shows: a made-up guest, in the configured variant. */
import type { PayloadVariant } from "../Config/AppConfig.js"
import { defaults } from "../Events/EventMapping.js"
import type { EventRow } from "../Events/EventsRepo.js"
import type { GuestRow } from "../Guests/GuestsRepo.js"
import { eventPersonBody } from "./Payloads.js"

const at = "2030-05-01T17:30:00.000Z"

const event: EventRow = {
  id: 0,
  public_id: "00000000-0000-4000-8000-000000000001",
  organization_id: 0,
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
  updated_at: at
}

const row: GuestRow = {
  gid: 0,
  person_id: 0,
  public_id: "00000000-0000-4000-8000-000000000002",
  first_name: "Jane",
  last_name: "Doe",
  email: "jane.doe@example.com",
  company: "Example Inc",
  position: "Director",
  rsvp_status: "Accepted",
  attendance_status: null,
  dietary_restrictions: JSON.stringify(["vegetarian"]),
  rsvp_note: "Looking forward to it",
  custom_columns: JSON.stringify({ Table: "7" }),
  rsvp_question_responses: "[]",
  phone: null,
  consent: null,
  consent_source: null,
  token: null,
  removed_at: null,
  history: "[]"
}

export const sampleEventPerson = (variant: PayloadVariant): unknown =>
  eventPersonBody(variant, event, {
    row,
    guest: {
      personId: row.public_id,
      firstName: "Jane",
      lastName: "Doe",
      name: "Jane Doe",
      email: row.email,
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
      { status: "Accepted", actorId: row.public_id, actorType: "eventPerson", actionType: "updated", createdAt: at }
    ]
  }, "Invited", at)
