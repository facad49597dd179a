/**
 * A guest's ticket code, made when first needed (Tickets.ts says what a code is): by the RSVP page,
 * the door, and the emails that carry the ticket (a status email, a reminder). Apart from
 * `Tickets` so that the guest-list writes, below it, can issue one in their transaction.
 */
import * as Effect from "effect/Effect"
import { Ids } from "../Domain/Ids.js"
import type { GuestRowId } from "../Domain/RowIds.js"
import { nowIso } from "../Domain/Time.js"
import { TicketsRepo } from "./TicketsRepo.js"

/** Crockford's base32: no I, L, O or U, so nothing reads as another symbol. */
export const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
/** Symbols of a code: 10 × 5 = 50 random bits. */
export const CODE_LENGTH = 10
/** How many fresh codes a new ticket tries before giving up (a clash is a one-in-10^15 event). */
const ATTEMPTS = 5

export class TicketCodes extends Effect.Service<TicketCodes>()("Convene/TicketCodes", {
  effect: Effect.gen(function*() {
    const repo = yield* TicketsRepo
    const ids = yield* Ids

    /** A fresh random code: 7 random bytes, of which 50 bits make 10 symbols. */
    const freshCode = Effect.map(ids.secret(7), (secret) => {
      let bits = 0n
      for (const byte of Buffer.from(secret, "base64url")) bits = (bits << 8n) | BigInt(byte)
      let code = ""
      for (let i = 0; i < CODE_LENGTH; i++) code += ALPHABET[Number((bits >> BigInt(5 * i)) & 31n)]
      return code
    })

    /**
     * The ticket code of a guest link, made now if it has none (run it in the transaction of the
     * write that needs it). Once made, a code never changes.
     */
    const issue = Effect.fn("Tickets.issue")(function*(guestId: GuestRowId) {
      const existing = yield* repo.codeOf(guestId)
      if (existing !== undefined) return existing
      const at = yield* nowIso
      for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
        const code = yield* repo.insert(guestId, yield* freshCode, at)
        if (code !== undefined) return code
      }
      return yield* Effect.dieMessage(`no free ticket code after ${ATTEMPTS} attempts`)
    })

    return { issue } as const
  }),
  dependencies: [TicketsRepo.Default, Ids.Default]
}) {}
