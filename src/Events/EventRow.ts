/** An event as its row holds it (`events`): what the events' repository reads and other features are given. */
import * as Schema from "effect/Schema"
import { rowIdColumn } from "../Domain/RowIds.js"

const text = Schema.NullOr(Schema.String)

export const EventRow = Schema.Struct({
  id: rowIdColumn.event,
  public_id: Schema.String,
  organization_id: rowIdColumn.organization,
  name: Schema.String,
  slug: text,
  /** as given, with its offset */
  primary_date: Schema.String,
  /** the same instant in UTC (toISOString), for order and past/upcoming */
  primary_date_utc: Schema.String,
  timezone: Schema.String,
  is_public: Schema.Number,
  location_name: text,
  location_address: text,
  location_apartment: text,
  location_city: text,
  location_state: text,
  location_postal_code: text,
  location_country: text,
  location_phone_number: text,
  location_website: text,
  virtual_locations: Schema.String,
  event_tags: Schema.String,
  images: Schema.String,
  rsvp_description: text,
  link_preview_description: text,
  featured_image: text,
  capacity_enabled: Schema.Number,
  capacity: Schema.NullOr(Schema.Number),
  ticketing_enabled: Schema.Number,
  rsvp_questions: Schema.String,
  custom_columns: Schema.String,
  /** 1 while the public page takes registrations (CONTRACT §16) */
  registration_open: Schema.Number,
  /** as given, with its offset; null: until the event starts */
  registration_closes_at: text,
  /** 1: registrations wait for approval (`Pending`) */
  registration_approval: Schema.Number,
  /** JSON array of ISO 8601 durations before the start */
  reminders: Schema.String,
  reply_to: text,
  /** as given, with its offset; null: no end time */
  end_date: text,
  /** The calendar revision (iCalendar `SEQUENCE`): grows when anything a calendar file shows changes. */
  calendar_sequence: Schema.Number,
  updated_at: Schema.String
})
export type EventRow = typeof EventRow.Type

/** The writable columns of an event row. */
export type EventColumns = Omit<EventRow, "id" | "public_id" | "organization_id" | "updated_at" | "calendar_sequence">
