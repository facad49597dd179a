/**
 * Guests of one event as the API renders them for a caller (GuestView.ts): with their payments on a
 * ticketed event, for a caller who sees them, loaded for these guests only.
 */
import * as Effect from "effect/Effect"
import type { Caller } from "../Domain/Caller.js"
import type { GuestRowId } from "../Domain/RowIds.js"
import type { EventRow } from "../Events/EventRow.js"
import { guestPayments } from "../Payments/GuestPayments.js"
import { PaymentReads } from "../Payments/PaymentReads.js"
import { PublicOrigin } from "../Runtime/PublicOrigin.js"
import { seesPayments } from "./Domain.js"
import { type GuestRow, GuestsRepo } from "./GuestsRepo.js"
import { renderGuests } from "./GuestView.js"

export class GuestRenderer extends Effect.Service<GuestRenderer>()("Convene/GuestRenderer", {
  effect: Effect.gen(function*() {
    const repo = yield* GuestsRepo
    const payments = yield* PaymentReads
    const origin = yield* PublicOrigin

    /**
     * Renders rows of one event for the caller; payments are loaded only when they will be shown,
     * and only those of these rows' guests.
     */
    const render = (caller: Caller, event: EventRow, rows: ReadonlyArray<GuestRow>) =>
      Effect.gen(function*() {
        const wantsPayments = event.ticketing_enabled === 1 && seesPayments(caller.role) && rows.length > 0
        const paid = wantsPayments ? guestPayments(yield* payments.ofPersons(event.id, rows.map((r) => r.person_id))) : undefined
        return renderGuests(rows, { event, role: caller.role, rsvpLink: origin.rsvpLink, payments: paid })
      })

    /** The given guests' rows, in the order given, and the guests as rendered for the caller. */
    const loadByIds = (caller: Caller, event: EventRow, guestIds: ReadonlyArray<GuestRowId>) =>
      Effect.gen(function*() {
        const rows = yield* repo.byIds(guestIds)
        const order = new Map(guestIds.map((id, i) => [id, i]))
        const sorted = [...rows].sort((a, b) => order.get(a.gid)! - order.get(b.gid)!)
        return { rows: sorted, guests: yield* render(caller, event, sorted) }
      })

    return { render, loadByIds } as const
  }),
  dependencies: [GuestsRepo.Default, PaymentReads.Default, PublicOrigin.Default]
}) {}
