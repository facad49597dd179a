/**
 * Self-registration's rules (CONTRACT §16, "Registration"), pure: when an event takes
 * registrations, what a registration carries (with the API's field limits: a new guest's names and
 * email as `POST /event/:id/guestlist` takes them, answers and dietary restrictions as the RSVP
 * page takes them), and what the registrant is told.
 */
import * as Schema from "effect/Schema"
import { Email, RequiredText } from "../Domain/Fields.js"
import type { EventRow } from "../Events/EventRow.js"
import { placesLeftOf, takesRegistrations } from "../Events/RegistrationWindow.js"
import type { RsvpStatus } from "../Guests/Domain.js"

/** Registrations per client address: 20 per 10 minutes (a bucket refilled steadily). */
export const REGISTRATIONS_PER_WINDOW = 20
export const REGISTRATION_WINDOW_MINUTES = 10

/** How often an address already on the list is sent its RSVP link again, at most. */
export const LINK_RESEND_WINDOW_MINUTES = 60

/** The longest answer to one of the event's questions, and dietary restrictions' limits (the RSVP page's). */
export const MAX_ANSWER = 1000
export const MAX_DIETARY = 20
export const MAX_DIETARY_ITEM = 100

/** What a registrant gives: the names and email of a new guest of the API, their answers and dietary restrictions. */
export const RegistrationInput = Schema.Struct({
  firstName: RequiredText(200),
  lastName: RequiredText(200),
  email: Email,
  answers: Schema.Array(Schema.String.pipe(Schema.maxLength(MAX_ANSWER))),
  dietaryRestrictions: Schema.Array(RequiredText(MAX_DIETARY_ITEM)).pipe(Schema.maxItems(MAX_DIETARY))
})
export type RegistrationInput = typeof RegistrationInput.Type

/** Whether the event takes registrations at `now` (ms): the Events feature's rule (RegistrationWindow.ts). */
export const registrationOpen = takesRegistrations

/** The places left on an event with capacity, or undefined without one. */
export const placesLeft = (event: EventRow, accepted: number): number | undefined => placesLeftOf(event, accepted) ?? undefined

/** What a registration's email says first, by the guest's status. */
export const confirmationHeadline = (status: RsvpStatus): string =>
  status === "Accepted"
    ? "You're registered"
    : status === "Waitlisted"
    ? "You're on the waitlist"
    : status === "Pending"
    ? "Registration received, awaiting approval"
    : "Your registration"
