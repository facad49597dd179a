/**
 * Guests as JSON text, written straight from the list's rows (the hot path of `GET
 * /event/:id/guestlist`, thousands of guests per answer): what `JSON.stringify(renderGuest(row))`
 * gives (GuestView.ts), without building each guest as an object first, and with the JSON the
 * rows already hold spliced in as it is: the RSVP history, aggregated by the list's query in the
 * API's shape, and the stored arrays and objects (dietary restrictions, question responses,
 * custom columns), which the service writes as JSON. Half the allocation of rendering objects and
 * encoding them, and none of the parsing (bench/RESULTS.md, issue 18). test/guest-json.test.ts
 * checks that the text parses to `renderGuest`'s value for generated rows.
 */
import type { GuestPaymentFields } from "../Payments/GuestPayments.js"
import { noPurchase } from "../Payments/GuestPayments.js"
import { asJsonText, type JsonText, jsonString, jsonStringOrNull } from "../Http/JsonText.js"
import type { Guest } from "./Domain.js"
import type { GuestRow } from "./GuestsRepo.js"
import { type RenderOptions, seesPayments } from "./GuestView.js"

const paymentJson = (fields: GuestPaymentFields) =>
  `,"paymentStatus":${jsonString(fields.paymentStatus)},"paymentAmount":${fields.paymentAmount},"donationAmount":${
    fields.donationAmount === null ? "null" : fields.donationAmount
  },"payments":${JSON.stringify(fields.payments)}`

const NO_TICKETING = `,"paymentStatus":null,"paymentAmount":null,"donationAmount":null,"payments":null`

/**
 * One guest of a list's row, whose `history` is the API's (`status`, `actorId`, `actorType`,
 * `createdAt`: GuestsRepo's `ofEvent`).
 */
export const guestJson = (row: GuestRow, options: RenderOptions): JsonText<Guest> => {
  let text = `{"personId":${jsonString(row.public_id)},"firstName":${jsonString(row.first_name)},"lastName":${
    jsonString(row.last_name)
  },"name":${jsonString(`${row.first_name} ${row.last_name}`)},"email":${jsonString(row.email)},"phone":${
    jsonStringOrNull(row.phone)
  },"smsConsent":${
    row.phone === null
      ? "null"
      : `{"consent":${jsonString(row.consent ?? "none")},"source":${jsonString(row.consent_source ?? "default")}}`
  },"rsvpStatus":${jsonString(row.rsvp_status)},"rsvpStatusHistory":${row.history},"dietaryRestrictions":${
    row.dietary_restrictions ?? "null"
  },"attendanceStatus":${jsonStringOrNull(row.attendance_status)},"rsvpQuestionResponses":${row.rsvp_question_responses},"rsvpNote":${
    jsonStringOrNull(row.rsvp_note)
  },"customColumns":${row.custom_columns ?? "null"},"rsvpLink":${jsonStringOrNull(options.rsvpLink(options.event.slug, row.token))}`
  if (seesPayments(options.role)) {
    text += options.event.ticketing_enabled === 1 ? paymentJson(options.payments?.get(row.person_id) ?? noPurchase) : NO_TICKETING
  }
  return asJsonText<Guest>(text + "}")
}

export const guestsJson = (rows: ReadonlyArray<GuestRow>, options: RenderOptions): Array<JsonText<Guest>> =>
  rows.map((row) => guestJson(row, options))
