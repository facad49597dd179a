/**
 * What the RSVP page and email invitations write of a guest, inside their own transaction: its RSVP
 * link (an invite token, made once and stable), and its own answer through that link. A new link
 * is a change of the guest (its `rsvpLink`), recorded in the change feed.
 */
import * as Effect from "effect/Effect"
import { Changes } from "../Changes/Changes.js"
import { type ChangeEntry, guestChange } from "../Changes/Domain.js"
import { Ids } from "../Domain/Ids.js"
import type { GuestRowId, OrganizationRowId } from "../Domain/RowIds.js"
import { trimToNull } from "../Domain/Fields.js"
import { nowIso } from "../Domain/Time.js"
import type { EventRow } from "../Events/EventRow.js"
import { historyFull, MAX_HISTORY_ENTRIES, type QuestionResponse, type RsvpStatus } from "./Domain.js"
import { GuestsRepo } from "./GuestsRepo.js"

/** What a guest answers on the RSVP page, as `recordAnswer` stores it. */
export interface RsvpAnswer {
  readonly rsvpStatus: RsvpStatus
  readonly responses: ReadonlyArray<QuestionResponse>
  readonly dietaryRestrictions: ReadonlyArray<string>
  readonly note: string
}

/** A guest of an event: `gid` its guest link, `public_id` its person. */
export interface LinkedGuest {
  readonly gid: GuestRowId
  readonly public_id: string
}

export class GuestInvites extends Effect.Service<GuestInvites>()("Convene/GuestInvites", {
  effect: Effect.gen(function*() {
    const repo = yield* GuestsRepo
    const ids = yield* Ids
    const changeFeed = yield* Changes

    /** New RSVP links for the given guests of the event, which have none, made at `at`; recorded as changes of the guests. */
    const addInvites = (organizationId: OrganizationRowId, event: EventRow, guests: ReadonlyArray<LinkedGuest>, at: string) =>
      Effect.gen(function*() {
        const made = new Map<GuestRowId, string>()
        const linked: Array<ChangeEntry> = []
        for (const guest of guests) {
          if (made.has(guest.gid)) continue
          const token = yield* ids.secret(24)
          yield* repo.addInvite(guest.gid, token, at)
          made.set(guest.gid, token)
          linked.push(guestChange("updated", guest.public_id, event.public_id))
        }
        yield* changeFeed.record(organizationId, linked)
        return made
      })

    /**
     * The RSVP link token of each given guest of the event, created where missing as
     * `generateRsvpLinks` does; stable once created. Runs in the caller's transaction.
     */
    const ensureInviteTokens = (organizationId: OrganizationRowId, event: EventRow, guests: ReadonlyArray<LinkedGuest>) =>
      Effect.gen(function*() {
        const tokens = yield* repo.inviteTokens(guests.map((g) => g.gid))
        const at = yield* nowIso
        const made = yield* addInvites(organizationId, event, guests.filter((guest) => !tokens.has(guest.gid)), at)
        for (const [gid, token] of made) tokens.set(gid, token)
        return tokens
      })

    /**
     * A guest's own answer on the RSVP page: its RSVP status, answers to the event's questions,
     * dietary restrictions and note, with a history entry by the guest (`eventPerson`, its personId).
     * Runs in the caller's transaction, which notifies and records the change. `historyEntries`:
     * the guest's as the caller read them in that transaction; a full history refuses the answer.
     */
    const recordAnswer = (guestId: GuestRowId, personId: string, historyEntries: number, answer: RsvpAnswer, at: string) =>
      historyEntries >= MAX_HISTORY_ENTRIES
        ? Effect.fail(historyFull())
        : Effect.zipRight(
          repo.update(guestId, {
            rsvp_status: answer.rsvpStatus,
            rsvp_question_responses: JSON.stringify(answer.responses),
            dietary_restrictions: answer.dietaryRestrictions.length === 0 ? null : JSON.stringify(answer.dietaryRestrictions),
            rsvp_note: trimToNull(answer.note)
          }, at),
          repo.addHistory({ guestId, status: answer.rsvpStatus, actorType: "eventPerson", actorId: personId, actionType: "updated", at })
        )

    return {
      addInvites,
      ensureInviteTokens,
      recordAnswer,
      /** Claims emailing a guest their RSVP link now, unless it was emailed after `since` (self-registration's once an hour). */
      claimLinkEmail: repo.claimLinkEmail
    } as const
  }),
  dependencies: [GuestsRepo.Default, Ids.Default, Changes.Default]
}) {}
