/**
 * A guest list as CSV: the columns of the export and of the import, and the validation of an
 * imported row, through the same schemas as `POST /event/:id/guestlist` (the person's fields) and
 * `PUT /event/:id/guestlist` (the guest's). The machinery (parsing, quoting, streaming) is in
 * `src/Csv/`.
 *
 * Columns, in export order: `personId`, `firstName`, `lastName`, `email`, `phone`, `company`,
 * `position`, `rsvpStatus`, `attendanceStatus`, `dietaryRestrictions`, `rsvpNote`, then one
 * `question:<title>` per RSVP question of the event (the guest's answers), one `column:<title>` per
 * custom column, and, for Team Members and above on a ticketed event, `paymentStatus`,
 * `paymentAmount` and `donationAmount`. Lists (dietary restrictions, answers) are joined with `; `
 * and an import splits them on `;` again.
 *
 * An import reads the person's fields (matched by email; names needed only for a new contact) and
 * the guest's `rsvpStatus`, `attendanceStatus`, `dietaryRestrictions`, `rsvpNote` and custom
 * columns. It knows and skips `personId`, the answers (only guests give them, on the RSVP page) and
 * the payment columns. A custom column may also be headed by its title alone, when no other column
 * has that name; a `column:` header naming no custom column of the event is reported as unknown.
 * Statuses are read whatever their case, spaces and punctuation (`accepted`, `No show`).
 */
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import type { ExportColumn } from "../Csv/CsvExport.js"
import type { CsvHeader, CsvRow, HeaderSpec, ImportColumn } from "../Csv/CsvImport.js"
import { normalizeHeader } from "../Csv/CsvImport.js"
import type { RowErrors } from "../Csv/ImportReport.js"
import { parseKeyed } from "../Domain/Keyed.js"
import { customColumnsOf, rsvpQuestionsOf } from "../Events/EventJson.js"
import type { EventRow } from "../Events/EventRow.js"
import type { GuestPaymentFields } from "../Payments/GuestPayments.js"
import {
  AttendanceStatus,
  type AttendanceStatus as Attendance,
  COLUMN_TEXT_MAX,
  type ColumnValue,
  isColumnValues,
  GuestUpdate,
  NewGuest,
  RsvpStatus
} from "./Domain.js"
import type { ExportGuestRow } from "./GuestsRepo.js"
import { dietOf, responsesOf } from "./GuestView.js"
import { atMostCharacters, blankToNull, emailKeyOf } from "../Domain/Fields.js"

/** What separates the items of a list in a cell. */
export const LIST_SEPARATOR = "; "

export const QUESTION_PREFIX = "question:"
export const COLUMN_PREFIX = "column:"
const COLUMN_PREFIX_PATTERN = /^column\s*:\s*/i

export type GuestColumn =
  | "personId"
  | "firstName"
  | "lastName"
  | "email"
  | "phone"
  | "company"
  | "position"
  | "rsvpStatus"
  | "attendanceStatus"
  | "dietaryRestrictions"
  | "rsvpNote"
  | "paymentStatus"
  | "paymentAmount"
  | "donationAmount"

/** A column an import knows: one of `guestColumns`, or an RSVP question's (skipped). */
export type GuestKey = GuestColumn | `${typeof QUESTION_PREFIX}${string}`

/** The fixed columns, in export order; the header of each is its key. */
export const guestColumns: ReadonlyArray<ImportColumn<GuestColumn>> = [
  { key: "personId", header: "personId", readOnly: true },
  { key: "firstName", header: "firstName", aliases: ["given name", "forename"] },
  { key: "lastName", header: "lastName", aliases: ["surname", "family name"] },
  { key: "email", header: "email", aliases: ["email address", "mail"] },
  { key: "phone", header: "phone", aliases: ["phone number", "telephone", "mobile"] },
  { key: "company", header: "company", aliases: ["organization", "organisation"] },
  { key: "position", header: "position", aliases: ["job title"] },
  { key: "rsvpStatus", header: "rsvpStatus", aliases: ["rsvp", "status"] },
  { key: "attendanceStatus", header: "attendanceStatus", aliases: ["attendance"] },
  { key: "dietaryRestrictions", header: "dietaryRestrictions", aliases: ["dietary", "diet", "dietary needs", "dietary requirements", "allergies"] },
  { key: "rsvpNote", header: "rsvpNote", aliases: ["note", "notes", "comment", "comments"] },
  { key: "paymentStatus", header: "paymentStatus", readOnly: true },
  { key: "paymentAmount", header: "paymentAmount", readOnly: true },
  { key: "donationAmount", header: "donationAmount", readOnly: true }
]

const PAYMENT_COLUMNS: ReadonlySet<GuestColumn> = new Set(["paymentStatus", "paymentAmount", "donationAmount"])

/** The event's RSVP question titles and custom column titles, in the event's order. */
export interface EventColumns {
  readonly questions: ReadonlyArray<string>
  readonly customColumns: ReadonlyArray<string>
}

export const eventColumnsOf = (event: EventRow): EventColumns => ({
  questions: rsvpQuestionsOf(event).map((q) => q.title),
  customColumns: customColumnsOf(event)
})

// --- export -----------------------------------------------------------------------------------

/** A guest as the export writes it: its row, and its payment fields when they are shown. */
export interface ExportRecord {
  readonly row: ExportGuestRow
  readonly payment: GuestPaymentFields | undefined
}

/** A custom column's value as a cell: numbers as JSON writes them, booleans as `true`/`false`. */
export const cellOfValue = (value: ColumnValue): string => (typeof value === "string" ? value : String(value))

const guestCells: Record<Exclude<GuestColumn, "paymentStatus" | "paymentAmount" | "donationAmount">, (row: ExportGuestRow) => string | null> = {
  personId: (g) => g.public_id,
  firstName: (g) => g.first_name,
  lastName: (g) => g.last_name,
  email: (g) => g.email,
  phone: (g) => g.phone,
  company: (g) => g.company,
  position: (g) => g.position,
  rsvpStatus: (g) => g.rsvp_status,
  attendanceStatus: (g) => g.attendance_status,
  dietaryRestrictions: (g) => dietOf(g)?.join(LIST_SEPARATOR) ?? null,
  rsvpNote: (g) => g.rsvp_note
}

const paymentCells: Record<"paymentStatus" | "paymentAmount" | "donationAmount", (p: GuestPaymentFields) => string | null> = {
  paymentStatus: (p) => p.paymentStatus,
  paymentAmount: (p) => String(p.paymentAmount),
  donationAmount: (p) => (p.donationAmount === null ? null : String(p.donationAmount))
}

/**
 * The answers to the `occurrence`-th question titled `title` (questions may share a title): the
 * guest's responses are matched to the questions by title, in order.
 */
const answersOf = (row: ExportGuestRow, title: string, occurrence: number): string | null => {
  const responses = responsesOf(row).filter((r) => r.title === title)
  const response = responses[occurrence]
  return response === undefined ? null : response.answers.join(LIST_SEPARATOR)
}

/** The export's columns for an event; payment columns only when `withPayments`. */
export const exportColumns = (columns: EventColumns, withPayments: boolean): ReadonlyArray<ExportColumn<ExportRecord>> => {
  const seen = new Map<string, number>()
  return [
    ...guestColumns.filter((c) => !PAYMENT_COLUMNS.has(c.key)).map((column): ExportColumn<ExportRecord> => ({
      header: column.header,
      cell: (record) => guestCells[column.key as keyof typeof guestCells](record.row)
    })),
    ...columns.questions.map((title): ExportColumn<ExportRecord> => {
      const occurrence = seen.get(title) ?? 0
      seen.set(title, occurrence + 1)
      return { header: `${QUESTION_PREFIX}${title}`, cell: (record) => answersOf(record.row, title, occurrence) }
    }),
    ...columns.customColumns.map((title): ExportColumn<ExportRecord> => ({
      header: `${COLUMN_PREFIX}${title}`,
      cell: (record) => {
        if (record.row.custom_columns === null) return null
        const values = parseKeyed(record.row.custom_columns, isColumnValues, "custom columns")
        return Object.hasOwn(values, title) ? cellOfValue(values[title]!) : null
      }
    })),
    ...(withPayments
      ? guestColumns.filter((c) => PAYMENT_COLUMNS.has(c.key)).map((column): ExportColumn<ExportRecord> => ({
        header: column.header,
        cell: (record) => (record.payment === undefined ? null : paymentCells[column.key as keyof typeof paymentCells](record.payment))
      }))
      : [])
  ]
}

// --- import -----------------------------------------------------------------------------------

/**
 * The custom column a header names: `column:<title>` (the title exactly, else the one title equal
 * to it whatever the case, spaces and punctuation), or the title alone (loosely, when one matches).
 */
const customColumnOf = (titles: ReadonlyArray<string>, header: string): string | undefined => {
  const prefixed = COLUMN_PREFIX_PATTERN.exec(header)
  const name = prefixed === null ? header : header.slice(prefixed[0].length).trim()
  if (prefixed !== null && titles.includes(name)) return name
  const wanted = normalizeHeader(name)
  if (wanted === "") return undefined
  const loose = titles.filter((title) => normalizeHeader(title) === wanted)
  return loose.length === 1 ? loose[0] : undefined
}

export const importSpec = (columns: EventColumns): HeaderSpec<GuestKey, string> => ({
  columns: [
    ...guestColumns,
    ...columns.questions.map((title): ImportColumn<GuestKey> => ({
      key: `${QUESTION_PREFIX}${title}`,
      header: `${QUESTION_PREFIX}${title}`,
      readOnly: true
    }))
  ],
  required: ["email"],
  extra: (header) => {
    const title = customColumnOf(columns.customColumns, header)
    return title === undefined ? undefined : { key: `${COLUMN_PREFIX}${title}`, value: title }
  }
})

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

/** What a schema issue says, without the value. */
const withoutValue = (message: string) => message.replace(/,\s*actual[\s\S]*$/, "").trim()

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
    // one message per field: a nullable field's schema also says "Expected null" for its other branch
    const seen = new Set<string>()
    for (const issue of ParseResult.ArrayFormatter.formatErrorSync(decoded.left)) {
      const field = String(issue.path[0] ?? "") as keyof ImportedRow
      if (seen.has(field)) continue
      seen.add(field)
      const item = issue.path[1]
      const message = withoutValue(issue.message)
      fail(FIELD_COLUMN[field] ?? "email", typeof item === "number" ? `item ${item + 1} ${message}` : message)
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
