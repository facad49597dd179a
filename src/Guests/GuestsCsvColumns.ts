/**
 * A guest list as CSV: the columns of the export and of the import. The export's cells are
 * GuestsCsvExport.ts; the validation of an imported row, through the same schemas as
 * `POST /event/:id/guestlist` (the person's fields) and `PUT /event/:id/guestlist` (the guest's),
 * GuestsCsvRows.ts. The machinery (parsing, quoting, streaming) is in `src/Csv/`.
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
import type { HeaderSpec, ImportColumn } from "../Csv/CsvHeader.js"
import { normalizeHeader } from "../Csv/CsvHeader.js"
import { customColumnsOf, rsvpQuestionsOf } from "../Events/EventJson.js"
import type { EventRow } from "../Events/EventRow.js"
import type { ColumnValue } from "./Domain.js"

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

export const PAYMENT_COLUMNS: ReadonlySet<GuestColumn> = new Set(["paymentStatus", "paymentAmount", "donationAmount"])

/** The event's RSVP question titles and custom column titles, in the event's order. */
export interface EventColumns {
  readonly questions: ReadonlyArray<string>
  readonly customColumns: ReadonlyArray<string>
}

export const eventColumnsOf = (event: EventRow): EventColumns => ({
  questions: rsvpQuestionsOf(event).map((q) => q.title),
  customColumns: customColumnsOf(event)
})

/** A custom column's value as a cell: numbers as JSON writes them, booleans as `true`/`false`. */
export const cellOfValue = (value: ColumnValue): string => (typeof value === "string" ? value : String(value))

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
