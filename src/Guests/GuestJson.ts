/**
 * Guests as JSON text written by the database (the hot path of `GET /event/:id/guestlist`,
 * thousands of guests per answer): what `JSON.stringify(renderGuest(row))` gives (GuestView.ts),
 * made by the list's query itself, so that a guest reaches JavaScript as one string rather than a
 * row of twenty values that a renderer would then write out again. Each value is quoted by the
 * engine (`Dialect.jsonQuote`), and the JSON the rows already hold is spliced in as it is: the
 * RSVP history, aggregated in the API's shape (`Dialect.jsonObjects`), and the stored arrays and
 * objects (dietary restrictions, question responses, custom columns), which the service writes as
 * JSON. A list of 1,000 guests allocated 5.9 MB in JavaScript when its rows were rendered there
 * (bench/RESULTS.md, issue 18). test/repo/guest-json.test.ts checks the text, on the suite's engine,
 * against `renderGuest`'s value for generated rows.
 */
import type { GuestPaymentFields } from "../Payments/GuestPayments.js"
import type { Role } from "../Domain/Role.js"
import { seesPayments } from "./Domain.js"

/**
 * The SQL expression of a guest's JSON text, up to what follows its RSVP link (`tail`). It reads
 * the list's tables under their aliases: `g` (event_guests), `p` (persons), `ph` (the preferred
 * phone), `c` (its SMS consent), `i` (the invite), and `o`, one row of two text values for the
 * whole answer: `o.link_open`, the event's RSVP link up to its token as an open JSON string
 * (`rsvpLinkOpen`; NULL when the event has no page) and `o.tail`. `history` is the SQL of the
 * guest's history as a JSON array.
 */
export const guestJsonSql = (jsonQuote: (expression: string) => string, history: string): string =>
  [
    `'{"personId":' || ${jsonQuote("p.public_id")}`,
    `',"firstName":' || ${jsonQuote("p.first_name")}`,
    `',"lastName":' || ${jsonQuote("p.last_name")}`,
    `',"name":' || ${jsonQuote("p.first_name || ' ' || p.last_name")}`,
    `',"email":' || ${jsonQuote("p.email")}`,
    `',"phone":' || ${jsonQuote("ph.number")}`,
    `',"smsConsent":' || CASE WHEN ph.number IS NULL THEN 'null' ELSE '{"consent":' || ${
      jsonQuote("COALESCE(c.consent, 'none')")
    } || ',"source":' || ${jsonQuote("COALESCE(c.source, 'default')")} || '}' END`,
    `',"rsvpStatus":' || ${jsonQuote("g.rsvp_status")}`,
    `',"rsvpStatusHistory":' || ${history}`,
    `',"dietaryRestrictions":' || COALESCE(g.dietary_restrictions, 'null')`,
    `',"attendanceStatus":' || ${jsonQuote("g.attendance_status")}`,
    `',"rsvpQuestionResponses":' || g.rsvp_question_responses`,
    `',"rsvpNote":' || ${jsonQuote("g.rsvp_note")}`,
    `',"customColumns":' || COALESCE(g.custom_columns, 'null')`,
    `',"rsvpLink":' || CASE WHEN i.token IS NULL OR o.link_open IS NULL THEN 'null' ELSE o.link_open || substr(${
      jsonQuote("i.token")
    }, 2) END`,
    `o.tail`
  ].join("\n    || ")

/**
 * An RSVP link up to its token (`PublicOrigin.rsvpLinkPrefix`) as an open JSON string: the
 * token's quoted text, less its opening quote, completes it.
 */
export const rsvpLinkOpen = (prefix: string | null): string | null => prefix === null ? null : JSON.stringify(prefix).slice(0, -1)

const NO_TICKETING = `,"paymentStatus":null,"paymentAmount":null,"donationAmount":null,"payments":null}`

/**
 * What follows the RSVP link in every guest's text of an answer, when it is the same for all: the
 * closing brace for a caller who does not see payments; for one who does, on an event without
 * ticketing, the payment keys (null) before it. `undefined` on a ticketed event for a caller who
 * sees payments: each guest then ends with its own (`paymentTail`).
 */
export const sharedTail = (role: Role, ticketingEnabled: boolean): string | undefined =>
  !seesPayments(role) ? "}" : ticketingEnabled ? undefined : NO_TICKETING

/** A guest's payment keys and the closing brace, on a ticketed event, for a caller who sees them. */
export const paymentTail = (fields: GuestPaymentFields): string =>
  `,"paymentStatus":${JSON.stringify(fields.paymentStatus)},"paymentAmount":${fields.paymentAmount},"donationAmount":${
    fields.donationAmount === null ? "null" : fields.donationAmount
  },"payments":${JSON.stringify(fields.payments)}}`
