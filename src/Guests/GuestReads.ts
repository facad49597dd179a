/**
 * What other features read of guest lists: a person's events (Persons), the guests a purchase names
 * (Payments), the guest behind an invite (the RSVP page), the guests' invite tokens (email
 * invitations). Guest lists are written only by this feature (`GuestLists`); these reads run
 * wherever they are called, inside the caller's transaction when there is one.
 */
import * as Effect from "effect/Effect"
import { GuestsRepo } from "./GuestsRepo.js"

export type { GuestRow } from "./GuestsRepo.js"

export class GuestReads extends Effect.Service<GuestReads>()("Convene/GuestReads", {
  effect: Effect.gen(function*() {
    const repo = yield* GuestsRepo
    return {
      /** A person's events (active links only), by event date, each with its RSVP history: their `eventHistory`. */
      eventsOfPerson: repo.eventsOfPerson,
      /** The active guest links of the given persons (by public id) on an event, by public id. */
      activeLinks: repo.activeLinks,
      /** The active guest an invite token belongs to, on the event with that public slug. */
      byInvite: repo.byInvite,
      /** Given guests (removed ones included) with their person, phone, consent, invite and history, in link order. */
      byIds: repo.byIds,
      /** How many guests of the event hold a place (Accepted), other than one. */
      acceptedOthers: repo.acceptedOthers,
      /** How many guests of the event hold a place (Accepted), counted up to a limit (the capacity), on an index. */
      acceptedUpTo: repo.acceptedUpTo,
      /** The invite tokens the given guests have (guests without one are absent). */
      inviteTokens: repo.inviteTokens
    } as const
  }),
  dependencies: [GuestsRepo.Default]
}) {}
