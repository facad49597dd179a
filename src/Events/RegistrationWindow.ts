/**
 * When an event takes registrations on its public page, and how many places it has left (CONTRACT
 * §16), in one place for every reader: the page and its form (SelfRegistration), the
 * organization's listing and feeds (Guests/OrganizationListing.ts) and the event's dashboard page
 * (Web/Events/PublicFace.ts).
 */
import type { EventRow } from "./EventRow.js"

/** What the rule reads of an event, however it is held (a stored row, the API's event). */
export interface RegistrationFacts {
  /** Public with a page address (a slug): it has a public page. */
  readonly isPublic: boolean
  readonly registrationOpen: boolean
  /** `registrationClosesAt` (ISO 8601 with offset), or null: until the start. */
  readonly closesAt: string | null
  /** The start (ISO 8601 with offset). */
  readonly startsAt: string
}

/** §16: public, `registrationOpen`, and now (ms) before `registrationClosesAt`, or before the start when that is null. */
export const registrationIsOpen = (event: RegistrationFacts, now: number): boolean =>
  event.isPublic && event.registrationOpen && now < Date.parse(event.closesAt ?? event.startsAt)

/** The rule over a stored event. */
export const takesRegistrations = (event: EventRow, now: number): boolean =>
  registrationIsOpen({
    isPublic: event.is_public === 1 && event.slug !== null,
    registrationOpen: event.registration_open === 1,
    closesAt: event.registration_closes_at,
    startsAt: event.primary_date
  }, now)

/** Places left on an event with capacity, given its `Accepted` count (never below 0); null without capacity. */
export const placesLeftOf = (event: EventRow, accepted: number): number | null =>
  event.capacity_enabled === 1 && event.capacity !== null ? Math.max(0, event.capacity - accepted) : null
