/**
 * Door links (CONTRACT §17): an event's check-in links for volunteers without an account. An
 * Admin makes one with a name ("North entrance") and an end (by default the end of the event's
 * day in its zone, `DoorLinkExpiry.ts`); its token (256 random bits) is shown once and stored only
 * as its hash. Opening `/door/<token>` acts as a door-only caller of the event's organization: the
 * pages behind it show that event's guests' names, status and attendance and check them in, nothing
 * else. A link past its end or revoked is unknown at once (each request looks it up).
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { Caller } from "../Domain/Caller.js"
import { InvalidRequest, NotFound } from "../Domain/Errors.js"
import { Ids } from "../Domain/Ids.js"
import { hashToken } from "../Domain/Secrets.js"
import { nowIso } from "../Domain/Time.js"
import { Events } from "../Events/Events.js"
import { defaultExpiry, endOfLocalDay } from "./DoorLinkExpiry.js"
import { type DoorLinkRow, DoorLinksRepo } from "./DoorLinksRepo.js"

/** A door link as its event's page lists it. */
export interface DoorLink {
  readonly linkId: string
  readonly name: string
  readonly expiresAt: string
  readonly createdAt: string
  readonly revokedAt: string | null
  /** Usable now: neither revoked nor past its end. */
  readonly live: boolean
}

/** What an open link gives its pages: the door-only caller and the event's id. */
export interface DoorLinkAccess {
  readonly caller: Caller
  readonly eventId: string
  readonly linkId: string
  readonly name: string
}

/** The longest name of a link. */
export const MAX_LINK_NAME = 80

const unknownLink = new NotFound({ message: "This door link is unknown, revoked or expired." })

const viewOf = (row: DoorLinkRow, now: string): DoorLink => ({
  linkId: row.public_id,
  name: row.name,
  expiresAt: row.expires_at,
  createdAt: row.created_at,
  revokedAt: row.revoked_at,
  live: row.revoked_at === null && row.expires_at > now
})

export class DoorLinks extends Effect.Service<DoorLinks>()("Convene/DoorLinks", {
  effect: Effect.gen(function*() {
    const repo = yield* DoorLinksRepo
    const events = yield* Events
    const ids = yield* Ids

    /**
     * Makes a link for the event, valid until the end of `lastDay` (YYYY-MM-DD, in the event's
     * zone), else of the event's day; the plain token is in the answer only.
     */
    const create = Effect.fn("DoorLinks.create")(function*(caller: Caller, eventId: string, input: { readonly name: string; readonly lastDay?: string | undefined }) {
      const event = yield* events.find(caller, eventId)
      const name = input.name.trim()
      if (name === "" || name.length > MAX_LINK_NAME) return yield* InvalidRequest.at("name", `must be 1 to ${MAX_LINK_NAME} characters`)
      const now = yield* nowIso
      const day = input.lastDay === undefined ? undefined : /^(\d{4})-(\d{2})-(\d{2})$/.exec(input.lastDay)
      if (day === null) return yield* InvalidRequest.at("lastDay", "must be a date, YYYY-MM-DD")
      const expiresAt = day === undefined ? defaultExpiry(event) : endOfLocalDay(Number(day[1]), Number(day[2]), Number(day[3]), event.timezone)
      if (expiresAt <= now) return yield* InvalidRequest.at("lastDay", "must not be over already: the link would end before it is used")
      const token = yield* ids.secret(32)
      const linkId = yield* ids.uuid
      yield* repo.insert({ publicId: linkId, eventId: event.id, name, tokenHash: hashToken(token), expiresAt, createdAt: now }).pipe(Effect.orDie)
      return { link: viewOf({ public_id: linkId, name, expires_at: expiresAt, created_at: now, revoked_at: null }, now), token }
    })

    /** The event's links, newest first, with whether each is usable now. */
    const list = Effect.fn("DoorLinks.list")(function*(caller: Caller, eventId: string) {
      const event = yield* events.find(caller, eventId)
      const now = yield* nowIso
      return (yield* repo.ofEvent(event.id).pipe(Effect.orDie)).map((row) => viewOf(row, now))
    })

    const revoke = Effect.fn("DoorLinks.revoke")(function*(caller: Caller, eventId: string, linkId: string) {
      const event = yield* events.find(caller, eventId)
      const revoked = yield* repo.revoke(event.id, linkId, yield* nowIso).pipe(Effect.orDie)
      if (!revoked) return yield* new NotFound({ message: `Door link ${linkId} not found` })
    })

    /** The live link of a token: its door-only caller; NotFound for any other token. */
    const open = Effect.fn("DoorLinks.open")(function*(token: string) {
      if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return yield* unknownLink
      const found = yield* repo.byTokenHash(hashToken(token)).pipe(Effect.orDie)
      const now = yield* nowIso
      if (found === undefined || found.revoked_at !== null || found.expires_at <= now) return yield* unknownLink
      const caller: Caller = {
        organizationId: found.organization_id,
        organizationSlug: found.organization_slug,
        // checks guests in and out, as a Team Member may; the door's pages offer nothing else
        role: "Team Member",
        actor: { type: "apiKey", id: `door-link:${found.public_id}` },
        userId: Option.none(),
        callerKey: `door-link:${found.public_id}`
      }
      return { caller, eventId: found.event_public_id, linkId: found.public_id, name: found.name } satisfies DoorLinkAccess
    })

    return { create, list, revoke, open } as const
  }),
  dependencies: [DoorLinksRepo.Default, Events.Default, Ids.Default]
}) {}
