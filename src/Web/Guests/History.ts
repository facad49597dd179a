/**
 * A guest's RSVP history as the pages write it (a guest's page, a contact's events): newest first,
 * in the event's time zone, each entry with who made it, named as the member reading it may know
 * them: members and API keys by name for Admins and above (who may read them), in the page's words.
 */
import * as Effect from "effect/Effect"
import { ApiTokens } from "../../Auth/ApiTokens.js"
import { historyOf } from "../../Guests/GuestView.js"
import { Members } from "../../Organizations/Members.js"
import { dateTimeIn } from "../Kit/Format.js"
import type { Viewer } from "../Kit/Viewer.js"

/** A guest's row, as `GuestLists.guest` gives it. */
type GuestRow = Parameters<typeof historyOf>[0]

/** One entry of a guest's RSVP history, as the page writes it. */
export interface HistoryLine {
  readonly status: string
  readonly added: boolean
  readonly by: string
  readonly when: string
  readonly iso: string
}

/** Who made an entry, in a page's words (`name`: undefined when the member may not know it). */
export interface ActorWords {
  readonly you: string
  readonly member: (name: string | undefined) => string
  readonly apiKey: (name: string | undefined) => string
  readonly guest: string
}

/** Who made a waitlist promotion's entry (`system`): the same words on every page. */
const SYSTEM = "Convene, from the waitlist"

/** The history of guests' rows as `viewer` reads it, with the members and keys it may name looked up once. */
export const guestHistory = Effect.map(Effect.all([Members, ApiTokens]), ([members, tokens]) => (viewer: Viewer, words: ActorWords) =>
  Effect.gen(function*() {
    const names = new Map<string, string>()
    if (viewer.can("Admin")) {
      for (const m of yield* members.active(viewer.organization.id)) {
        const name = [m.firstName, m.lastName].filter((s) => s !== null && s !== "").join(" ")
        names.set(`user:${m.userId}`, name === "" ? m.email : name)
      }
      for (const t of yield* tokens.apiTokens(viewer.organization.id)) names.set(`apiKey:${t.tokenId}`, t.name)
    }
    const by = (actorType: string, actorId: string): string => {
      if (actorType === "user") return actorId === viewer.caller.actor.id ? words.you : words.member(names.get(`user:${actorId}`))
      if (actorType === "apiKey") return words.apiKey(names.get(`apiKey:${actorId}`))
      if (actorType === "eventPerson") return words.guest
      if (actorType === "system") return SYSTEM
      return actorType
    }
    return (row: GuestRow, timezone: string): ReadonlyArray<HistoryLine> =>
      historyOf(row).map((h) => ({
        status: h.status,
        added: h.actionType === "added",
        by: by(h.actorType, h.actorId),
        when: dateTimeIn(h.createdAt, timezone),
        iso: h.createdAt
      })).reverse()
  }))
