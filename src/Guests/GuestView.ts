/** Guests as the API shows them, from set-loaded rows: no query per guest. */
import { atLeast, type Role } from "../Domain/Role.js"
import type { EventRow } from "../Events/EventsRepo.js"
import { type GuestPaymentFields, noPurchase } from "../Payments/GuestPayments.js"
import type { ColumnValue, Guest, QuestionResponse } from "./Domain.js"
import type { GuestRow } from "./GuestsRepo.js"

export interface HistoryEntryView {
  readonly status: string
  readonly actorId: string
  readonly actorType: string
  readonly actionType: string
  readonly createdAt: string
}

/** A guest's RSVP history, oldest first, with the action type the webhook records carry. */
export const historyOf = (row: GuestRow): ReadonlyArray<HistoryEntryView> => JSON.parse(row.history)

export interface RenderOptions {
  readonly event: EventRow
  readonly role: Role
  readonly rsvpLink: (slug: string | null, token: string | null) => string | null
  /** Payment fields per person id; only read for ticketed events and callers from Team Member up. */
  readonly payments: Map<number, GuestPaymentFields> | undefined
}

/** Whether the caller sees payment fields at all (below Team Member the payment keys are absent, not null). */
export const seesPayments = (role: Role) => atLeast(role, "Team Member")

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
    dietaryRestrictions: row.dietary_restrictions === null ? null : JSON.parse(row.dietary_restrictions) as Array<string>,
    attendanceStatus: row.attendance_status,
    rsvpQuestionResponses: JSON.parse(row.rsvp_question_responses) as Array<QuestionResponse>,
    rsvpNote: row.rsvp_note,
    customColumns: row.custom_columns === null ? null : JSON.parse(row.custom_columns) as Record<string, ColumnValue>,
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
