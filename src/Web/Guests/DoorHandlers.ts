/**
 * The door's pages and answers (CONTRACT §17), the same for a member's door and a door link's: the
 * page (a GET search without JavaScript), the whole list as JSON for door.js, and the writes (a
 * tap, its undo, a ticket's code), answered as JSON to door.js (kept by `Idempotency-Key`,
 * DoorKeyed.ts) or, to a plain form, by the page again.
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { Caller } from "../../Domain/Caller.js"
import { NotFound } from "../../Domain/Errors.js"
import { Events } from "../../Events/Events.js"
import { Idempotency } from "../../Idempotency/Idempotency.js"
import { DoorList } from "../../Guests/DoorList.js"
import type { DoorCounts, DoorEntry } from "../../Guests/DoorRules.js"
import { GuestLists } from "../../Guests/GuestLists.js"
import { formatCode, readCode } from "../../Guests/Tickets.js"
import { summaryOf } from "../Events/Summary.js"
import { Cut, type Form, fieldsOf, readQuery } from "../Kit/Form.js"
import { Web } from "../Kit/Web.js"
import { jsonAnswer, keyedJson } from "./DoorKeyed.js"
import { DoorPage, type DoorResult } from "./DoorPage.js"
import { type DoorOutcome, doorTaps, messageOf, toneOf } from "./DoorTaps.js"
import { DOOR_PAGE_SIZE, doorQuery, DoorState } from "./State.js"

/** Whose door it is: the caller, the event, where its pages are and what they may show. */
export interface DoorPlace {
  readonly caller: Caller
  readonly eventId: string
  /** The door's service path; its writes are under it. */
  readonly base: string
  readonly csrf: string | null
  readonly withEmail: boolean
  readonly canWrite: boolean
  /** Whether a message may name another event of the organization (not for a door link). */
  readonly seesOtherEvents: boolean
  readonly back?: { readonly href: string; readonly label: string } | undefined
  readonly linkName?: string | undefined
}

const DONE = ["CheckedIn", "Undone", "AlreadyIn", "NotIn", "Removed"] as const
const DoorQuery = Schema.Struct({ ...DoorState.fields, ticket: Cut(300), done: Schema.String, who: Schema.String, since: Cut(40) })
const readState = fieldsOf(DoorState)
const readWrite = fieldsOf(Schema.Struct({ ticket: Cut(300), confirm: Schema.String }))

const wantsJson = Effect.map(HttpServerRequest.HttpServerRequest, (request) => (request.headers["accept"] ?? "").includes("application/json"))

/** The guests a search finds: a ticket's code finds its holder, else a part of the name (or email). */
const matching = (entries: ReadonlyArray<DoorEntry>, q: string, withEmail: boolean) => {
  const code = readCode(q)
  if (code !== undefined) return entries.filter((e) => e.code === code)
  const term = q.trim().toLowerCase()
  if (term === "") return entries
  return entries.filter((e) => e.name.toLowerCase().includes(term) || (withEmail && (e.email ?? "").toLowerCase().includes(term)))
}

export const doorHandlers = Effect.gen(function*() {
  const web = yield* Web
  const doorList = yield* DoorList
  const guestLists = yield* GuestLists
  const events = yield* Events
  const taps = yield* doorTaps
  const store = yield* Idempotency

  const render = (
    place: DoorPlace,
    state: DoorState,
    result: (entries: ReadonlyArray<DoorEntry>, zone: string) => DoorResult | null,
    ticket: { value: string; error?: string },
    status = 200
  ) =>
    Effect.gen(function*() {
      const { counts, entries, event } = yield* doorList.entries(place.caller, place.eventId, place.withEmail)
      const found = matching(entries, state.q, place.withEmail)
      const summary = summaryOf(event)
      return web.render(
        DoorPage({
          site: web.site,
          eventName: summary.name,
          when: summary.when,
          base: place.base,
          csrf: place.csrf,
          back: place.back,
          linkName: place.linkName,
          canWrite: place.canWrite,
          state,
          guests: found.slice(state.skip, state.skip + DOOR_PAGE_SIZE),
          total: found.length,
          counts,
          result: result(entries, event.timezone),
          ticket,
          withEmail: place.withEmail
        }),
        status
      )
    })

  /** The door page (`?q=` a search, `?ticket=` a code opened from a ticket's QR code, `?done=` a write's answer). */
  const page = (place: DoorPlace) =>
    Effect.gen(function*() {
      const query = yield* readQuery(DoorQuery)
      const state = { q: query.q, skip: query.skip }
      const done = DONE.find((tag) => tag === query.done)
      if (query.ticket !== "" && place.canWrite) {
        // a ticket's QR code opened with a phone's camera app: whose it is, before anyone is let in
        const outcome = yield* taps.scan(place.caller, place.eventId, query.ticket, { confirmed: false, withEmail: place.withEmail, dryRun: true })
        const value = "guest" in outcome && outcome.guest.code !== null ? formatCode(outcome.guest.code) : query.ticket
        return yield* render(place, state, (_, zone) => resultOf(place, outcome, zone, query.ticket), { value })
      }
      // after a plain form's write: what it did, from the redirect's `done` and `who`
      return yield* render(place, state, (entries, zone) => {
        if (done === undefined) return null
        const guest = entries.find((e) => e.id === query.who)
        const outcome: DoorOutcome = done === "Removed" || guest === undefined
          ? { _tag: "Removed", name: guest?.name ?? "This guest" }
          : done === "AlreadyIn"
          ? { _tag: done, guest, since: Number.isNaN(Date.parse(query.since)) ? null : query.since }
          : { _tag: done, guest }
        return resultOf(place, outcome, zone)
      }, { value: "" })
    })

  const resultOf = (place: DoorPlace, outcome: DoorOutcome, zone: string, ticket?: string): DoorResult => ({
    tone: toneOf(outcome),
    message: messageOf(outcome, zone, place.seesOtherEvents),
    undo: outcome._tag === "CheckedIn" ? outcome.guest : undefined,
    confirm: outcome._tag === "NeedsConfirmation" ? { guest: outcome.guest, ticket } : undefined
  })

  /** The whole list, for door.js: every guest of the event with their ticket's code (for who checks guests in), and the counts. */
  const list = (place: DoorPlace) =>
    Effect.map(doorList.entries(place.caller, place.eventId, place.withEmail), ({ counts, entries }) =>
      jsonAnswer(200, { entries: place.canWrite ? entries : entries.map((e) => ({ ...e, code: null })), counts }))

  const countsNow = (place: DoorPlace) =>
    Effect.map(guestLists.counts(place.caller, place.eventId), (c): DoorCounts => ({
      checkedIn: c.attendedByStatus.Accepted,
      expected: c.byStatus.Accepted,
      extra: c.attended - c.attendedByStatus.Accepted
    }))

  /** A write at the door: `personId` a tap (or its `undo`), else the form's ticket code. */
  const write = (place: DoorPlace, form: Form, target: { readonly personId: string; readonly undo: boolean } | undefined) =>
    Effect.gen(function*() {
      const state = readState(form)
      const { confirm, ticket } = readWrite(form)
      const confirmed = confirm === "1"
      const event = yield* events.find(place.caller, place.eventId)
      const act = target === undefined
        ? taps.scan(place.caller, place.eventId, ticket, { confirmed, withEmail: place.withEmail, dryRun: false })
        : taps.tap(place.caller, place.eventId, target.personId, { undo: target.undo, confirmed, withEmail: place.withEmail })
      if (yield* wantsJson) {
        const fingerprint = target === undefined ? `ticket ${ticket} ${confirmed}` : `${target.personId} ${target.undo} ${confirmed}`
        return yield* keyedJson(store, `${place.caller.callerKey} org:${place.caller.organizationId}`, fingerprint, Effect.gen(function*() {
          const outcome = yield* act
          const counts = yield* countsNow(place)
          const guest = "guest" in outcome ? outcome.guest : null
          return {
            status: 200,
            body: { outcome: outcome._tag, tone: toneOf(outcome), message: messageOf(outcome, event.timezone, place.seesOtherEvents), guest, counts }
          }
        }))
      }
      const outcome = yield* act
      if (target === undefined && ticket === "") {
        return yield* render(place, state, () => null, { value: "", error: "Type the ticket code, or scan the ticket's QR code." }, 400)
      }
      switch (outcome._tag) {
        case "NeedsConfirmation":
          return yield* render(place, state, () => resultOf(place, outcome, event.timezone, target === undefined ? ticket : undefined), { value: "" })
        case "Invalid":
        case "Unknown":
        case "OtherEvent":
          return yield* render(place, state, () => null, {
            value: outcome._tag === "Invalid" ? ticket : formatCode(outcome.code),
            error: messageOf(outcome, event.timezone, place.seesOtherEvents)
          }, outcome._tag === "Invalid" ? 400 : outcome._tag === "Unknown" ? 404 : 409)
        case "Removed":
          // a plain form's tap on a guest who is not on this list: the 404 page, as for any unknown id
          if (target !== undefined) return yield* new NotFound({ message: `Guest ${target.personId} not found` })
          return yield* render(place, state, () => null, { value: ticket, error: messageOf(outcome, event.timezone, place.seesOtherEvents) }, 409)
        default: {
          const since = outcome._tag === "AlreadyIn" && outcome.since !== null ? { since: outcome.since } : {}
          return web.redirect(`${place.base}${doorQuery(state, { done: outcome._tag, who: outcome.guest.id, ...since })}`)
        }
      }
    })

  return { page, list, write } as const
})
