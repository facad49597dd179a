/**
 * The guest list's rows as the repository reads them (GuestsRepo.ts and its parts), with the
 * schemas that decode them, and what its queries take.
 */
import * as Schema from "effect/Schema"
import { AttendanceStatus, SmsConsent } from "./Domain.js"
import { rowIdColumn } from "../Domain/RowIds.js"

const text = Schema.NullOr(Schema.String)

/**
 * A guest as the list reads it. Columns with a CHECK constraint (migrations 0002 and 0003) have its
 * values as their type: `attendance_status` and the phone's `consent`.
 */
export const GuestRow = Schema.Struct({
  gid: rowIdColumn.guest,
  person_id: rowIdColumn.person,
  public_id: Schema.String,
  first_name: Schema.String,
  last_name: Schema.String,
  email: Schema.String,
  company: text,
  position: text,
  rsvp_status: Schema.String,
  attendance_status: Schema.NullOr(AttendanceStatus),
  dietary_restrictions: text,
  rsvp_note: text,
  custom_columns: text,
  rsvp_question_responses: Schema.String,
  phone: text,
  consent: Schema.NullOr(SmsConsent.fields.consent),
  consent_source: text,
  token: text,
  removed_at: text,
  /** The RSVP history, oldest first, as a JSON array (aggregated by the query). */
  history: Schema.String
})
export type GuestRow = typeof GuestRow.Type

/** A guest of the list as its JSON text (GuestJson.ts `guestJsonSql`), with its link's and person's ids. */
export const GuestJsonRow = Schema.Struct({ gid: rowIdColumn.guest, person_id: rowIdColumn.person, json: Schema.String })
export type GuestJsonRow = typeof GuestJsonRow.Type

/** What every guest's JSON text of one answer shares (GuestJson.ts): its event's RSVP link, open, and its tail. */
export interface ListJsonShared {
  readonly linkOpen: string | null
  readonly tail: string
}

export const LinkRow = Schema.Struct({
  id: rowIdColumn.guest,
  person_id: rowIdColumn.person,
  rsvp_status: Schema.String,
  attendance_status: text,
  dietary_restrictions: text,
  rsvp_note: text,
  custom_columns: text,
  removed_at: text,
  /** Its RSVP history's entries (Domain.ts `MAX_HISTORY_ENTRIES`). */
  history_entries: Schema.Number
})
export type LinkRow = typeof LinkRow.Type

/** `LinkRow`'s `history_entries`, counted on the `(event_guest_id, …)` index (`g` the link). */
export const HISTORY_ENTRIES = "(SELECT count(*) FROM rsvp_history h WHERE h.event_guest_id = g.id) AS history_entries"


/** What the dashboard's guest list and door page ask for: a filtered, searched page of the list. */
export interface GuestPageQuery {
  /** Only guests with this RSVP status. */
  readonly rsvpStatus?: string | undefined
  /** Only guests with this attendance; `none` = not checked in. */
  readonly attendance?: "Attended" | "No Show" | "none" | undefined
  /** A case-insensitive part of the name (first, last or full) or of the email. */
  readonly term?: string | undefined
  /** `added`: the list's own order (as the API's); `name`: by first and last name, for the door. */
  readonly order: "added" | "name"
  readonly limit: number
  readonly skip: number
}

/** A guest as the CSV export writes it: the person's fields and the guest's, without the history. */
export const ExportGuestRow = Schema.Struct({
  gid: rowIdColumn.guest,
  person_id: rowIdColumn.person,
  public_id: Schema.String,
  first_name: Schema.String,
  last_name: Schema.String,
  email: Schema.String,
  phone: text,
  company: text,
  position: text,
  rsvp_status: Schema.String,
  attendance_status: text,
  dietary_restrictions: text,
  rsvp_note: text,
  custom_columns: text,
  rsvp_question_responses: Schema.String
})
export type ExportGuestRow = typeof ExportGuestRow.Type

/** A guest's values as an import reads and writes them (`event_guests` columns, JSON as stored). */
export const GuestValues = Schema.Struct({
  rsvp_status: Schema.String,
  attendance_status: text,
  dietary_restrictions: text,
  rsvp_note: text,
  custom_columns: text
})
export type GuestValues = typeof GuestValues.Type

/** A guest link an import found, with the state its writes expect to find again. */
export const ImportLinkRow = Schema.Struct({
  id: rowIdColumn.guest,
  person_id: rowIdColumn.person,
  ...GuestValues.fields,
  removed_at: text,
  /** Its RSVP history's entries (Domain.ts `MAX_HISTORY_ENTRIES`). */
  history_entries: Schema.Number
})
export type ImportLinkRow = typeof ImportLinkRow.Type

export type GuestFilter =
  | { readonly _tag: "PersonIds"; readonly personIds: ReadonlyArray<string> }
  | { readonly _tag: "Email"; readonly email: string }
  | { readonly _tag: "Name"; readonly name: string }

