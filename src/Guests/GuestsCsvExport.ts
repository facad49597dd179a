/** The guest-list export's columns (GuestsCsvColumns.ts): the fixed ones, the event's questions and custom columns, the payments. */
import type { ExportColumn } from "../Csv/CsvExport.js"
import { parseKeyed } from "../Domain/Keyed.js"
import type { GuestPaymentFields } from "../Payments/GuestPayments.js"
import { isColumnValues } from "./Domain.js"
import {
  cellOfValue,
  COLUMN_PREFIX,
  type EventColumns,
  type GuestColumn,
  guestColumns,
  LIST_SEPARATOR,
  PAYMENT_COLUMNS,
  QUESTION_PREFIX
} from "./GuestsCsvColumns.js"
import type { ExportGuestRow } from "./GuestsRepo.js"
import { dietOf, responsesOf } from "./GuestView.js"

/** A guest as the export writes it: its row, and its payment fields when they are shown. */
export interface ExportRecord {
  readonly row: ExportGuestRow
  readonly payment: GuestPaymentFields | undefined
}

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
