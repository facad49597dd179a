/**
 * An imported guest-list row validated (GuestsCsvColumns.ts): the person's fields as
 * `POST /event/:id/guestlist` items take them, the guest's as `PUT /event/:id/guestlist` items do,
 * statuses read whatever their case, spaces and punctuation (`accepted`, `No show`).
 */
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import type { CsvHeader } from "../Csv/CsvHeader.js"
import type { CsvRow } from "../Csv/CsvImport.js"
import { normalizeHeader } from "../Csv/CsvHeader.js"
import { fieldIssues } from "../Csv/FieldIssues.js"
import type { RowErrors } from "../Csv/ImportReport.js"
import { atMostCharacters, blankToNull, emailKeyOf } from "../Domain/Fields.js"
import { AttendanceStatus, type AttendanceStatus as Attendance, COLUMN_TEXT_MAX, GuestUpdate, NewGuest, RsvpStatus } from "./Domain.js"
import type { GuestColumn, GuestKey } from "./GuestsCsvColumns.js"

/** A valid imported row, ready to plan. Names and person fields are null when the row has none. */
export interface GuestInput {
  readonly row: number
  readonly email: string
  readonly emailKey: string
  readonly firstName: string | null
  readonly lastName: string | null
  readonly phone: string | null
  readonly company: string | null
  readonly position: string | null
  readonly rsvpStatus: RsvpStatus | undefined
  readonly attendanceStatus: Attendance | undefined
  /** JSON as stored; undefined: the row sets none. */
  readonly dietaryRestrictions: string | undefined
  readonly rsvpNote: string | undefined
  /** The custom columns the row sets, by title, as the cells give them. */
  readonly customColumns: ReadonlyArray<readonly [string, string]>
}

/**
 * The fields of an imported row, each optional (a row matching a contact needs no names; a
 * missing email is reported in its own words): the person's as `POST /event/:id/guestlist` items
 * take them, the guest's as `PUT /event/:id/guestlist` items do.
 */
const ImportedRow = Schema.Struct({
  firstName: NewGuest.from.fields.firstName,
  lastName: NewGuest.from.fields.lastName,
  email: NewGuest.from.fields.email,
  phoneNumber: NewGuest.from.fields.phoneNumber,
  company: NewGuest.from.fields.company,
  position: NewGuest.from.fields.position,
  dietaryRestrictions: GuestUpdate.fields.dietaryRestrictions,
  rsvpNote: GuestUpdate.fields.rsvpNote
})
type ImportedRow = typeof ImportedRow.Type
const decodeRow = Schema.decodeUnknownEither(ImportedRow, { errors: "all", onExcessProperty: "ignore" })

/** Where a decoded field's errors go: the file's column of it. */
const FIELD_COLUMN: Readonly<Record<keyof ImportedRow, GuestColumn>> = {
  firstName: "firstName",
  lastName: "lastName",
  email: "email",
  phoneNumber: "phone",
  company: "company",
  position: "position",
  dietaryRestrictions: "dietaryRestrictions",
  rsvpNote: "rsvpNote"
}

/** A status read forgivingly: by its letters and digits, whatever the case. */
const statusReader = <S extends string>(values: ReadonlyArray<S>) => {
  const byKey = new Map(values.map((value) => [normalizeHeader(value), value]))
  const words = `${values.slice(0, -1).join(", ")} or ${values[values.length - 1]}`
  return { read: (cell: string): S | undefined => byKey.get(normalizeHeader(cell)), message: `must be one of ${words}` }
}
const RSVP = statusReader(RsvpStatus.literals)
const ATTENDANCE = statusReader(AttendanceStatus.literals)

/** A list cell's items: split on `;`, each trimmed, empty ones dropped. */
export const splitList = (cell: string): Array<string> => cell.split(";").map((item) => item.trim()).filter((item) => item !== "")

/**
 * Validates one row; its errors go to `errors` (column: the file's header for the field, or the
 * field's name). Answers the row's input when it has no error.
 */
export const validateRow = (
  table: CsvHeader<GuestKey, string>,
  { cells, row }: CsvRow,
  errors: RowErrors
): GuestInput | undefined => {
  const input: Record<string, unknown> = {}
  const customColumns: Array<readonly [string, string]> = []
  let rsvpStatus: RsvpStatus | undefined
  let attendanceStatus: Attendance | undefined
  // the row's errors, listed in the file's column order
  const found: Array<{ readonly at: number; readonly column: string; readonly message: string }> = []
  const fail = (key: GuestColumn, message: string) =>
    found.push({ at: table.slotOf.get(key) ?? -1, column: table.headerOf(key), message })
  table.slots.forEach((slot, i) => {
    const cell = cells[i]!
    if (cell === "") return
    if (slot._tag === "Extra") {
      if (cell.length > COLUMN_TEXT_MAX) found.push({ at: i, column: slot.header, message: atMostCharacters(COLUMN_TEXT_MAX) })
      else customColumns.push([slot.value, cell])
      return
    }
    switch (slot.key) {
      case "rsvpStatus":
        rsvpStatus = RSVP.read(cell)
        if (rsvpStatus === undefined) fail(slot.key, RSVP.message)
        return
      case "attendanceStatus":
        attendanceStatus = ATTENDANCE.read(cell)
        if (attendanceStatus === undefined) fail(slot.key, ATTENDANCE.message)
        return
      case "dietaryRestrictions":
        input["dietaryRestrictions"] = splitList(cell)
        return
      case "phone":
        input["phoneNumber"] = cell
        return
      default:
        input[slot.key] = cell
    }
  })
  if (input["email"] === undefined) fail("email", "is empty: each row needs the guest's email")
  const decoded = decodeRow(input)
  if (Either.isLeft(decoded)) {
    for (const issue of fieldIssues(decoded.left)) {
      const message = issue.item === undefined ? issue.message : `item ${issue.item + 1} ${issue.message}`
      fail(FIELD_COLUMN[issue.field as keyof ImportedRow] ?? "email", message)
    }
  }
  for (const error of found.sort((a, b) => a.at - b.at)) errors.add(row, error.column, error.message)
  // a row with any error (those found while reading it included) goes no further
  if (found.length > 0 || errors.has(row) || Either.isLeft(decoded)) return undefined
  const fields: ImportedRow = decoded.right
  if (fields.email === undefined) return undefined
  const dietary = fields.dietaryRestrictions
  return {
    row,
    email: fields.email,
    emailKey: emailKeyOf(fields.email),
    firstName: blankToNull(fields.firstName),
    lastName: blankToNull(fields.lastName),
    phone: blankToNull(fields.phoneNumber),
    company: blankToNull(fields.company),
    position: blankToNull(fields.position),
    rsvpStatus,
    attendanceStatus,
    dietaryRestrictions: dietary === undefined || dietary === null || dietary.length === 0 ? undefined : JSON.stringify(dietary),
    rsvpNote: blankToNull(fields.rsvpNote) ?? undefined,
    customColumns
  }
}
