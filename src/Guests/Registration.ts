/**
 * A guest who signs themselves up on the event's public page (CONTRACT §16, "Registration"), as
 * `GuestListWrites.add` writes it when given one: the guest's first history entry is their own
 * (`eventPerson`, their personId) with the status registration gives, not the `Invited` entry of a
 * member's add, and their answers to the event's questions and dietary restrictions are stored with
 * it. The status: `Pending` when the event wants approval, else `Accepted` while places remain
 * (counted in the adding transaction: writes are serialized, so capacity is never exceeded), else
 * `Waitlisted`.
 */
import type { QuestionResponse, RsvpStatus } from "./Domain.js"
import { freePlaces, type Places } from "./Waitlist.js"

export interface Registration {
  /** `Pending` (approval wanted) or `Accepted` (a place while places remain, else the waitlist). */
  readonly asks: "Pending" | "Accepted"
  readonly responses: ReadonlyArray<QuestionResponse>
  readonly dietaryRestrictions: ReadonlyArray<string>
}

/** The status a registration gets with the places as they stand in the adding transaction. */
export const registeredStatus = (registration: Registration, places: Places): RsvpStatus =>
  registration.asks === "Pending" ? "Pending" : freePlaces(places) > 0 ? "Accepted" : "Waitlisted"

/** The guest's columns a registration writes beside its status. */
export const registrationColumns = (registration: Registration, status: RsvpStatus): Record<string, string | null> => ({
  rsvp_status: status,
  rsvp_question_responses: JSON.stringify(registration.responses),
  dietary_restrictions: registration.dietaryRestrictions.length === 0 ? null : JSON.stringify(registration.dietaryRestrictions)
})
