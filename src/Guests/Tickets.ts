/**
 * Tickets for the door (docs/integrators.md#calendar-files-and-tickets). A guest who answered yes holds a ticket: a
 * short code that door staff can read out and type, and a QR code of the door's own address with
 * that code in it (`…/app/events/<id>/checkin?ticket=<code>`), which the dashboard's scanner reads
 * and which a phone's camera app opens as the door page with the code filled in.
 *
 * Codes: 10 symbols of Crockford's base32 (digits and capitals without I, L, O and U), shown as
 * `K7QXM-3M9PD`: 50 random bits, unique in the instance. Reading is forgiving as Crockford's is:
 * any case, spaces and dashes ignored, I and L read as 1, O as 0; the door address itself (pasted
 * or scanned) is accepted too. A code checks a guest in only at the door of its own event, through
 * the same guest-list update as the one-tap check-in; at another event's door it names the event
 * (in the same organization) or is unknown (elsewhere: nothing leaks).
 */
import * as Effect from "effect/Effect"
import * as QRCode from "qrcode"
import type { Caller } from "../Domain/Caller.js"
import { Events } from "../Events/Events.js"
import type { Guest } from "./Domain.js"
import { GuestLists } from "./GuestLists.js"
import { ALPHABET, CODE_LENGTH, TicketCodes } from "./TicketCodes.js"
import { TicketsRepo } from "./TicketsRepo.js"

export { CODE_LENGTH } from "./TicketCodes.js"

const CODE = new RegExp(`^[${ALPHABET}]{${CODE_LENGTH}}$`)

/** A code as people read it: `K7QXM-3M9PD`. */
export const formatCode = (code: string): string => `${code.slice(0, 5)}-${code.slice(5)}`

/**
 * The code in what door staff typed, pasted or scanned (a code in any case with spaces and dashes,
 * or the door address carrying `ticket=`), or undefined when it cannot be one.
 */
export const readCode = (input: string): string | undefined => {
  const fromAddress = /[?&]ticket=([^&#\s]*)/i.exec(input)?.[1]
  let text = fromAddress ?? input
  try {
    text = decodeURIComponent(text)
  } catch {
    return undefined
  }
  const code = text.replace(/[\s\-‐‑–—_.]/g, "").toUpperCase().replace(/[IL]/g, "1").replace(/O/g, "0")
  return CODE.test(code) ? code : undefined
}

/**
 * What a ticket's QR code holds: the door page of its event with the code filled in. `url` makes
 * an absolute address of a service path (`PublicOrigin.url`).
 */
export const doorAddress = (url: (path: string) => string, eventPublicId: string, code: string): string =>
  `${url(`/app/events/${encodeURIComponent(eventPublicId)}/checkin`)}?ticket=${code}`

/** A QR code as one SVG path of unit squares, with its quiet zone: what the page draws. */
export interface QrDrawing {
  /** Width and height in modules, the quiet zone included. */
  readonly size: number
  readonly path: string
}

const QUIET_ZONE = 4

/** The QR code of `text` (error correction M: a phone screen with a crack or glare still reads). */
export const qrDrawing = (text: string): QrDrawing => {
  const { modules } = QRCode.create(text, { errorCorrectionLevel: "M" })
  const n = modules.size
  const parts: Array<string> = []
  for (let y = 0; y < n; y++) {
    let x = 0
    while (x < n) {
      if (!modules.get(y, x)) {
        x++
        continue
      }
      let run = 1
      while (x + run < n && modules.get(y, x + run)) run++
      parts.push(`M${x + QUIET_ZONE} ${y + QUIET_ZONE}h${run}v1h-${run}z`)
      x += run
    }
  }
  return { size: n + 2 * QUIET_ZONE, path: parts.join("") }
}

/** What a code leads to at one event's door. */
export type TicketLookup =
  /** Not a ticket code at all (wrong length or symbols). */
  | { readonly _tag: "Invalid" }
  /** No ticket of this organization has the code. */
  | { readonly _tag: "Unknown"; readonly code: string }
  /** A ticket of another event of the organization. */
  | { readonly _tag: "OtherEvent"; readonly code: string; readonly eventName: string }
  /** A ticket of this event whose guest was taken off the list. */
  | { readonly _tag: "Removed"; readonly code: string }
  /** A guest of this event; `since`: when they were checked in, if they are. */
  | { readonly _tag: "Found"; readonly code: string; readonly guest: Guest; readonly since: string | null }

/** What checking a code in did. */
export type TicketCheckIn =
  | Exclude<TicketLookup, { readonly _tag: "Found" }>
  | { readonly _tag: "CheckedIn"; readonly code: string; readonly guest: Guest }
  | { readonly _tag: "AlreadyIn"; readonly code: string; readonly guest: Guest; readonly since: string | null }

export class Tickets extends Effect.Service<Tickets>()("Convene/Tickets", {
  effect: Effect.gen(function*() {
    const repo = yield* TicketsRepo
    const events = yield* Events
    const guestLists = yield* GuestLists
    const codes = yield* TicketCodes

    /** The ticket code of a guest link, made now if it has none (TicketCodes.ts). */
    const issue = codes.issue

    /** The code typed or scanned at the door of `eventId` (in the caller's organization), looked up. */
    const lookup = Effect.fn("Tickets.lookup")(function*(caller: Caller, eventId: string, input: string) {
      const event = yield* events.find(caller, eventId)
      const code = readCode(input)
      if (code === undefined) return { _tag: "Invalid" } satisfies TicketLookup
      const holder = yield* repo.holder(code).pipe(Effect.orDie)
      if (holder === undefined || holder.organization_id !== caller.organizationId) return { _tag: "Unknown", code } satisfies TicketLookup
      if (holder.event_id !== event.id) return { _tag: "OtherEvent", code, eventName: holder.event_name } satisfies TicketLookup
      if (holder.removed_at !== null) return { _tag: "Removed", code } satisfies TicketLookup
      return yield* guestLists.guest(caller, eventId, holder.person_public_id).pipe(
        Effect.map(({ guest }): TicketLookup => ({
          _tag: "Found",
          code,
          guest,
          since: guest.attendanceStatus === "Attended" ? holder.attended_at : null
        })),
        // taken off the list a moment ago
        Effect.catchTag("NotFound", () => Effect.succeed<TicketLookup>({ _tag: "Removed", code }))
      )
    })

    /**
     * Checks the ticket's guest in at the door of `eventId`: attendance `Attended` through the
     * guest-list update the API's PUT makes (the `EventPerson` notification, no RSVP history
     * entry). A guest checked in already, or any code that is not this event's, changes nothing.
     */
    const checkIn = Effect.fn("Tickets.checkIn")(function*(caller: Caller, eventId: string, input: string) {
      const found = yield* lookup(caller, eventId, input)
      if (found._tag !== "Found") return found as TicketCheckIn
      const { code, guest } = found
      if (guest.attendanceStatus === "Attended") return { _tag: "AlreadyIn", code, guest, since: found.since } satisfies TicketCheckIn
      return yield* guestLists.update(caller, eventId, [{ personId: guest.personId, attendanceStatus: "Attended" }]).pipe(
        Effect.map((change): TicketCheckIn => ({ _tag: "CheckedIn", code, guest: change.guests[0] ?? guest })),
        Effect.catchTag("InvalidRequest", () => Effect.succeed<TicketCheckIn>({ _tag: "Removed", code })),
        // an attendance change adds no RSVP history, so it never finds a full one
        Effect.catchTag("Conflict", (conflict) => Effect.die(conflict))
      )
    })

    return { issue, lookup, checkIn } as const
  }),
  dependencies: [TicketsRepo.Default, Events.Default, GuestLists.Default, TicketCodes.Default]
}) {}
