/** Guests as the API shows them, from set-loaded rows: no query per guest. */
import { arrayOf, isString, nullOr, parseChecked, struct, textFields } from "../Domain/JsonGuard.js"
import type { Role } from "../Domain/Role.js"
import type { PersonRowId } from "../Domain/RowIds.js"
import type { EventRow } from "../Events/EventRow.js"
import { type GuestPaymentFields, noPurchase } from "../Payments/GuestPayments.js"
import { type Guest, isColumnValues, type QuestionResponse, seesPayments } from "./Domain.js"
import type { GuestRow } from "./GuestsRepo.js"

export interface HistoryEntryView {
  readonly status: string
  readonly actorId: string
  readonly actorType: string
  readonly actionType: string
  readonly createdAt: string
}

const isHistory = arrayOf(textFields("status", "actorId", "actorType", "actionType", "createdAt"))
const isStrings = arrayOf(isString)
const isResponses = arrayOf(struct({ title: isString, description: nullOr(isString), answers: isStrings }))

/** A guest's RSVP history, oldest first, with the action type the webhook records carry. */
export const historyOf = (row: GuestRow): ReadonlyArray<HistoryEntryView> => parseChecked(isHistory, row.history, "RSVP history")

/** A guest's answers to the RSVP questions, as stored (`rsvp_question_responses`). */
export const responsesOf = (row: Pick<GuestRow, "rsvp_question_responses">): ReadonlyArray<QuestionResponse> =>
  parseChecked(isResponses, row.rsvp_question_responses, "RSVP answers")

/** A guest's dietary restrictions, as stored (`dietary_restrictions`). */
export const dietOf = (row: Pick<GuestRow, "dietary_restrictions">): ReadonlyArray<string> | null =>
  row.dietary_restrictions === null ? null : parseChecked(isStrings, row.dietary_restrictions, "dietary restrictions")

export interface RenderOptions {
  readonly event: EventRow
  readonly role: Role
  readonly rsvpLink: (slug: string | null, token: string | null) => string | null
  /** Payment fields per person id; only read for ticketed events and callers from Team Member up. */
  readonly payments: Map<PersonRowId, GuestPaymentFields> | undefined
}


const consentOf = (row: GuestRow): Guest["smsConsent"] =>
  row.phone === null
    ? null
    : {
      consent: row.consent ?? "none",
      source: row.consent_source ?? "default"
    }

export const renderGuest = (row: GuestRow, options: RenderOptions): Guest => {
  const guest: { -readonly [K in keyof Guest]: Guest[K] } = {
    personId: row.public_id,
    firstName: row.first_name,
    lastName: row.last_name,
    name: `${row.first_name} ${row.last_name}`,
    email: row.email,
    phone: row.phone,
    smsConsent: consentOf(row),
    rsvpStatus: row.rsvp_status,
    rsvpStatusHistory: historyOf(row).map((h) => ({ status: h.status, actorId: h.actorId, actorType: h.actorType, createdAt: h.createdAt })),
    dietaryRestrictions: dietOf(row),
    attendanceStatus: row.attendance_status,
    rsvpQuestionResponses: responsesOf(row),
    rsvpNote: row.rsvp_note,
    customColumns: row.custom_columns === null ? null : parseChecked(isColumnValues, row.custom_columns, "custom columns"),
    rsvpLink: options.rsvpLink(options.event.slug, row.token)
  }
  if (seesPayments(options.role)) {
    if (options.event.ticketing_enabled === 1) {
      const fields = options.payments?.get(row.person_id) ?? noPurchase
      guest.paymentStatus = fields.paymentStatus
      guest.paymentAmount = fields.paymentAmount
      guest.donationAmount = fields.donationAmount
      guest.payments = fields.payments
    } else {
      guest.paymentStatus = null
      guest.paymentAmount = null
      guest.donationAmount = null
      guest.payments = null
    }
  }
  return guest
}

export const renderGuests = (rows: ReadonlyArray<GuestRow>, options: RenderOptions): Array<Guest> =>
  rows.map((row) => renderGuest(row, options))
