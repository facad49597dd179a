/**
 * What a guest-list import will write, decided before its transaction. Each row names a contact
 * by email and applies, in file order and as if the rows came one at a time:
 * - the contact: an active one with this email (case-insensitive) gets only its blank company,
 *   position and phone filled, never overwritten (as guest-list adds and the contacts import do);
 *   without one, a contact is created, which needs a first and a last name;
 * - the guest: put on the list when not on it (a removed guest comes back as `Invited`, as a
 *   guest-list add does); a guest on it already is not an error;
 * - the guest's values the row gives, as a guest-list update item would set them: every RSVP
 *   status given is recorded in the guest's history, even an unchanged one; an empty cell leaves a
 *   value as it is. A custom column's cell that reads as the stored value (a number or a boolean
 *   written out) keeps the stored value, so that a re-imported export changes nothing.
 *
 * Each valid row counts once: `added` (it put the guest on the list; `created` counts those of
 * them that also created the contact), `updated` (it changed a guest on the list already, a new
 * history entry or a filled contact field included) or `unchanged`.
 */
import { RowErrors } from "../Csv/ImportReport.js"
import { emptyKeyed, parseKeyed } from "../Domain/Keyed.js"
import type { PersonRowId } from "../Domain/RowIds.js"
import { importedColumns, type MatchRow } from "../Persons/PersonBatches.js"
import { type ColumnValue, HISTORY_FULL, isColumnValues, MAX_HISTORY_ENTRIES } from "./Domain.js"
import { cellOfValue } from "./GuestsCsvColumns.js"
import type { GuestInput } from "./GuestsCsvRows.js"
import type { GuestValues, ImportLinkRow } from "./GuestsRepo.js"

/** A contact to create. */
export interface PlannedPerson {
  readonly email: string
  readonly emailKey: string
  readonly firstName: string
  readonly lastName: string
  company: string | null
  position: string | null
  phone: string | null
}

/** Blank fields to fill on a matched contact (null: nothing to fill). */
export interface PlannedFill {
  readonly match: MatchRow
  company: string | null
  position: string | null
  phone: string | null
}

/** One guest the file names, with what the import makes of it. */
export interface PlannedGuest {
  readonly emailKey: string
  /** The contact's personId when it exists already (a contact the import creates gets one when written). */
  readonly personId: string | undefined
  /** The guest link found (on the list or removed from it), if any. */
  readonly link: ImportLinkRow | undefined
  /** `new`: a new link; `readd`: a removed guest back on the list; `listed`: on it already. */
  readonly mode: "new" | "readd" | "listed"
  /** The values the rows apply to: as found, or those of a guest just put on the list. */
  readonly start: GuestValues
  values: GuestValues
  /** RSVP statuses the rows set, in order: one history entry each. */
  readonly history: Array<string>
  /** Whether anything of the guest or its contact changes (the guest is affected). */
  changed: boolean
}

export interface GuestPlan {
  readonly creates: ReadonlyArray<PlannedPerson>
  /** Only the contacts that get something. */
  readonly fills: ReadonlyArray<PlannedFill>
  /** Every guest the valid rows name, in the order of their first row. */
  readonly guests: ReadonlyArray<PlannedGuest>
  readonly created: number
  readonly added: number
  readonly updated: number
  readonly unchanged: number
  readonly errors: RowErrors
}

const COMPANY = importedColumns.indexOf("company")
const POSITION = importedColumns.indexOf("position")

/** A guest just put on the list: `Invited`, nothing else. */
const ADDED: GuestValues = { rsvp_status: "Invited", attendance_status: null, dietary_restrictions: null, rsvp_note: null, custom_columns: null }

export const sameValues = (a: GuestValues, b: GuestValues) =>
  a.rsvp_status === b.rsvp_status && a.attendance_status === b.attendance_status &&
  a.dietary_restrictions === b.dietary_restrictions && a.rsvp_note === b.rsvp_note && a.custom_columns === b.custom_columns

/** A row's custom columns over the stored ones (JSON as stored); the same text when nothing changes. */
const mergeColumns = (stored: string | null, cells: ReadonlyArray<readonly [string, string]>): string | null => {
  if (cells.length === 0) return stored
  const merged = stored === null ? emptyKeyed<ColumnValue>() : parseKeyed(stored, isColumnValues, "custom columns")
  let changed = false
  for (const [title, cell] of cells) {
    const current = Object.hasOwn(merged, title) ? merged[title] : undefined
    if (current !== undefined && cellOfValue(current) === cell) continue
    merged[title] = cell
    changed = true
  }
  return changed ? JSON.stringify(merged) : stored
}

/** The values after a row, as a guest-list update item with the row's fields would leave them. */
const applyRow = (values: GuestValues, input: GuestInput): GuestValues => ({
  rsvp_status: input.rsvpStatus ?? values.rsvp_status,
  attendance_status: input.attendanceStatus ?? values.attendance_status,
  dietary_restrictions: input.dietaryRestrictions ?? values.dietary_restrictions,
  rsvp_note: input.rsvpNote ?? values.rsvp_note,
  custom_columns: mergeColumns(values.custom_columns, input.customColumns)
})

/** A later row's blank-filling values into a planned contact; answers whether it took anything. */
const fillPerson = (
  target: PlannedPerson | PlannedFill,
  input: GuestInput,
  stored: MatchRow | undefined
): boolean => {
  let changed = false
  const blank = (index: number) => stored === undefined || (stored.blanks & (1 << index)) !== 0
  if (input.company !== null && target.company === null && blank(COMPANY)) {
    target.company = input.company
    changed = true
  }
  if (input.position !== null && target.position === null && blank(POSITION)) {
    target.position = input.position
    changed = true
  }
  if (input.phone !== null && target.phone === null && (stored === undefined || stored.has_phone === 0)) {
    target.phone = input.phone
    changed = true
  }
  return changed
}

/**
 * Plans valid rows one by one, in file order (`add`), given the active contacts their emails
 * matched (by email key) and the guest links of those contacts on the event (by person id);
 * `plan` answers the result. `nameColumns` name the columns for the errors of rows that cannot
 * create a contact, `rsvpStatus` and `email` those of a row that would add to a full RSVP history
 * (Domain.ts `MAX_HISTORY_ENTRIES`). Nothing of a row is kept but what the plan needs.
 */
export const guestPlanner = (
  matches: ReadonlyMap<string, MatchRow>,
  links: ReadonlyMap<PersonRowId, ImportLinkRow>,
  nameColumns: { readonly firstName: string; readonly lastName: string; readonly rsvpStatus: string; readonly email: string }
) => {
  const errors = new RowErrors()
  const creates: Array<PlannedPerson> = []
  const fills = new Set<PlannedFill>()
  const people = new Map<string, PlannedPerson | PlannedFill>()
  const guests = new Map<string, PlannedGuest>()
  let created = 0
  let added = 0
  let updated = 0
  let unchanged = 0

  const add = (input: GuestInput): void => {
    let guest = guests.get(input.emailKey)
    let personChanged = false
    let adds = false
    if (guest === undefined) {
      const match = matches.get(input.emailKey)
      if (match === undefined) {
        const missing = [
          ...(input.firstName === null ? [nameColumns.firstName] : []),
          ...(input.lastName === null ? [nameColumns.lastName] : [])
        ]
        for (const column of missing) errors.add(input.row, column, "is needed to create a contact (no active contact has this email)")
        if (missing.length > 0) return
        const person: PlannedPerson = {
          email: input.email,
          emailKey: input.emailKey,
          firstName: input.firstName!,
          lastName: input.lastName!,
          company: input.company,
          position: input.position,
          phone: input.phone
        }
        creates.push(person)
        people.set(input.emailKey, person)
        created++
        guest = {
          emailKey: input.emailKey,
          personId: undefined,
          link: undefined,
          mode: "new",
          start: ADDED,
          values: ADDED,
          history: [],
          changed: true
        }
      } else {
        const fill: PlannedFill = { match, company: null, position: null, phone: null }
        people.set(input.emailKey, fill)
        personChanged = fillPerson(fill, input, match)
        if (personChanged) fills.add(fill)
        const link = links.get(match.id)
        const mode = link === undefined ? "new" : link.removed_at === null ? "listed" : "readd"
        const start: GuestValues = link === undefined
          ? ADDED
          : {
            // a removed guest comes back as `Invited`, not checked in, keeping the rest
            rsvp_status: mode === "readd" ? "Invited" : link.rsvp_status,
            attendance_status: mode === "readd" ? null : link.attendance_status,
            dietary_restrictions: link.dietary_restrictions,
            rsvp_note: link.rsvp_note,
            custom_columns: link.custom_columns
          }
        guest = { emailKey: input.emailKey, personId: match.public_id, link, mode, start, values: start, history: [], changed: mode !== "listed" }
      }
      adds = guest.mode !== "listed"
      guests.set(input.emailKey, guest)
    } else {
      const person = people.get(input.emailKey)!
      const stored = "match" in person ? person.match : undefined
      personChanged = fillPerson(person, input, stored)
      if (personChanged && "match" in person) fills.add(person)
    }
    // the history entries the guest would have with this row's: one `Invited` when it is put (back)
    // on the list, one per status given; a row that would pass the most a guest keeps is refused
    if (adds || input.rsvpStatus !== undefined) {
      const entries = (guest.link?.history_entries ?? 0) + (guest.mode === "listed" ? 0 : 1) + guest.history.length +
        (input.rsvpStatus === undefined ? 0 : 1)
      if (entries > MAX_HISTORY_ENTRIES) {
        errors.add(input.row, input.rsvpStatus === undefined ? nameColumns.email : nameColumns.rsvpStatus, `this guest ${HISTORY_FULL}`)
        return
      }
    }
    const values = applyRow(guest.values, input)
    const valuesChanged = !sameValues(values, guest.values)
    guest.values = values
    if (input.rsvpStatus !== undefined) guest.history.push(input.rsvpStatus)
    const touched = personChanged || valuesChanged || input.rsvpStatus !== undefined
    if (touched) guest.changed = true
    if (adds) added++
    else if (touched) updated++
    else unchanged++
  }

  const plan = (): GuestPlan => ({ creates, fills: [...fills], guests: [...guests.values()], created, added, updated, unchanged, errors })

  return { add, plan } as const
}
