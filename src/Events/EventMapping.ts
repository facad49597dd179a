/**
 * Events between the API and their rows: `toEvent` renders a row as the API's Event (docs/integrators.md#events, with
 * the derived `description` and `capacity`), `columnsOf` maps the fields of a create or patch to
 * the columns they set.
 */
import { blankToNull } from "../Domain/Fields.js"
import type { CreateEvent, Event, RsvpQuestion, VirtualLocation } from "./Domain.js"
import { customColumnsOf, eventTagsOf, imagesOf, remindersOf, rsvpQuestionsOf, virtualLocationsOf } from "./EventJson.js"
import type { EventColumns, EventRow } from "./EventRow.js"

/** The event's derived `description`: the link preview's, else the RSVP description on one line, else null. */
export const describeEvent = (linkPreview: string | null, rsvpDescription: string | null): string | null =>
  linkPreview !== null ? linkPreview : rsvpDescription !== null ? rsvpDescription.replace(/\r\n|\n|\r/g, " ") : null

export const toEvent = (row: EventRow, userRole: Event["userRole"], hostUserIds: ReadonlyArray<string>): Event => ({
  eventId: row.public_id,
  name: row.name,
  primarySlug: row.slug,
  primaryDate: row.primary_date,
  timezone: row.timezone,
  userRole,
  isPublic: row.is_public === 1,
  locationName: row.location_name,
  locationAddress: row.location_address,
  locationPhoneNumber: row.location_phone_number,
  locationWebsite: row.location_website,
  virtualLocations: virtualLocationsOf(row),
  eventTags: eventTagsOf(row),
  images: imagesOf(row),
  rsvpDescription: row.rsvp_description,
  description: describeEvent(row.link_preview_description, row.rsvp_description),
  capacity: row.capacity_enabled === 1 ? row.capacity : null,
  featuredImage: row.featured_image,
  locationApartment: row.location_apartment,
  locationCity: row.location_city,
  locationState: row.location_state,
  locationPostalCode: row.location_postal_code,
  locationCountry: row.location_country,
  linkPreviewDescription: row.link_preview_description,
  capacityEnabled: row.capacity_enabled === 1,
  ticketingEnabled: row.ticketing_enabled === 1,
  rsvpQuestions: rsvpQuestionsOf(row),
  customColumns: customColumnsOf(row),
  hostUserIds,
  registrationOpen: row.registration_open === 1,
  registrationClosesAt: row.registration_closes_at,
  registrationApproval: row.registration_approval === 1,
  reminders: remindersOf(row),
  replyTo: row.reply_to,
  endDate: row.end_date
})

export const slugify = (name: string) =>
  name.normalize("NFKD").replace(/[\u0300-\u036f]/g, "").toLowerCase().replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "").slice(0, 60).replace(/-+$/, "") || "event"

export type EventInput = { readonly [K in keyof Omit<CreateEvent, "hostUserIds">]?: CreateEvent[K] | undefined }

const orNull = <A>(value: A | null | undefined): A | null => (value === undefined ? null : value)

/** The columns an input sets, by API field; fields absent from the input are left out. */
export const columnsOf = (input: EventInput): Record<string, Partial<EventColumns>> => {
  const fields: Record<string, Partial<EventColumns>> = {}
  const set = <K extends keyof EventInput>(key: K, columns: (value: NonNullable<EventInput[K]> | null) => Partial<EventColumns>) => {
    if (input[key] !== undefined) fields[key] = columns(input[key] as NonNullable<EventInput[K]> | null)
  }
  set("name", (v) => ({ name: v! }))
  set("primaryDate", (v) => ({ primary_date: v!, primary_date_utc: new Date(v!).toISOString() }))
  set("timezone", (v) => ({ timezone: v! }))
  set("primarySlug", (v) => ({ slug: v }))
  set("isPublic", (v) => ({ is_public: v ? 1 : 0 }))
  set("locationName", (v) => ({ location_name: blankToNull(v) }))
  set("locationAddress", (v) => ({ location_address: blankToNull(v) }))
  set("locationApartment", (v) => ({ location_apartment: blankToNull(v) }))
  set("locationCity", (v) => ({ location_city: blankToNull(v) }))
  set("locationState", (v) => ({ location_state: blankToNull(v) }))
  set("locationPostalCode", (v) => ({ location_postal_code: blankToNull(v) }))
  set("locationCountry", (v) => ({ location_country: blankToNull(v) }))
  set("locationPhoneNumber", (v) => ({ location_phone_number: blankToNull(v) }))
  set("locationWebsite", (v) => ({ location_website: blankToNull(v) }))
  set("virtualLocations", (v) => ({
    virtual_locations: JSON.stringify((v ?? []).map((l): VirtualLocation => ({
      url: blankToNull(l.url),
      password: blankToNull(l.password),
      phoneNumber: blankToNull(l.phoneNumber),
      sourceType: blankToNull(l.sourceType)
    })))
  }))
  set("eventTags", (v) => ({ event_tags: JSON.stringify(v ?? []) }))
  set("images", (v) => ({ images: JSON.stringify((v ?? []).map((i) => ({ type: i.type, url: i.url }))) }))
  set("rsvpDescription", (v) => ({ rsvp_description: orNull(v) }))
  set("linkPreviewDescription", (v) => ({ link_preview_description: orNull(v) }))
  set("featuredImage", (v) => ({ featured_image: blankToNull(v) }))
  set("capacityEnabled", (v) => ({ capacity_enabled: v ? 1 : 0 }))
  set("capacity", (v) => ({ capacity: orNull(v) }))
  set("ticketingEnabled", (v) => ({ ticketing_enabled: v ? 1 : 0 }))
  set("rsvpQuestions", (v) => ({
    rsvp_questions: JSON.stringify((v ?? []).map((q): RsvpQuestion => ({ title: q.title, description: blankToNull(q.description) })))
  }))
  set("customColumns", (v) => ({ custom_columns: JSON.stringify(v ?? []) }))
  set("registrationOpen", (v) => ({ registration_open: v ? 1 : 0 }))
  set("registrationClosesAt", (v) => ({ registration_closes_at: orNull(v) }))
  set("registrationApproval", (v) => ({ registration_approval: v ? 1 : 0 }))
  set("reminders", (v) => ({ reminders: JSON.stringify(v ?? []) }))
  set("replyTo", (v) => ({ reply_to: blankToNull(v) }))
  set("endDate", (v) => ({ end_date: orNull(v) }))
  return fields
}

export const defaults: Omit<EventColumns, "name" | "primary_date" | "primary_date_utc" | "slug"> = {
  timezone: "UTC",
  is_public: 0,
  location_name: null,
  location_address: null,
  location_apartment: null,
  location_city: null,
  location_state: null,
  location_postal_code: null,
  location_country: null,
  location_phone_number: null,
  location_website: null,
  virtual_locations: "[]",
  event_tags: "[]",
  images: "[]",
  rsvp_description: null,
  link_preview_description: null,
  featured_image: null,
  capacity_enabled: 0,
  capacity: null,
  ticketing_enabled: 0,
  rsvp_questions: "[]",
  custom_columns: "[]",
  registration_open: 1,
  registration_closes_at: null,
  registration_approval: 0,
  reminders: "[]",
  reply_to: null,
  end_date: null
}
