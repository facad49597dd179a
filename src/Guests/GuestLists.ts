/**
 * Guest lists (docs/integrators.md#guest-lists): the service the API's handlers, the dashboard and
 * other features call. The list itself is here, streamed batch by batch; the other reads
 * (search, counts, pages, one guest) are GuestListQueries.ts; the atomic batches that add, update
 * and remove guests GuestListWrites.ts, the only writer of guests with GuestInvites.ts (a guest's
 * RSVP link, and its own answer on the RSVP page, `recordAnswer`); CSV export and import
 * GuestsCsv.ts; approving or declining registrations Approvals.ts.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { dialectOf } from "../Db/Dialect.js"
import type { Caller } from "../Domain/Caller.js"
import { InvalidRequest } from "../Domain/Errors.js"
import { Events } from "../Events/Events.js"
import type { EventRow } from "../Events/EventRow.js"
import { asJsonText, jsonText } from "../Http/JsonText.js"
import { StreamSlots } from "../Http/StreamSlots.js"
import { guestPayments, noPurchase } from "../Payments/GuestPayments.js"
import { PaymentReads } from "../Payments/PaymentReads.js"
import { PublicOrigin } from "../Runtime/PublicOrigin.js"
import type { Guest } from "./Domain.js"
import { Approvals } from "./Approvals.js"
import { GuestInvites } from "./GuestInvites.js"
import { paymentTail, rsvpLinkOpen, sharedTail } from "./GuestJson.js"
import { GuestListQueries } from "./GuestListQueries.js"
import { GuestListWrites } from "./GuestListWrites.js"
import { GuestRenderer } from "./GuestRenderer.js"
import { GuestsCsv } from "./GuestsCsv.js"
import { GuestsRepo } from "./GuestsRepo.js"

/**
 * Guests per batch of a whole list: a list of a thousand takes a handful of statements, and one
 * batch's JSON texts (about 700 KB) stay far below the heap whatever the list's size.
 * On PostgreSQL, half as many: there the first whole read of a 40,000-guest list peaked 12-18 MB
 * of live heap above SQLite's with batches of 1,000, past test/slow/large-answers.test.ts's 64 MB heap
 * (measured, cause not pinned down: the driver's reads are asynchronous where SQLite's are not);
 * 500 hold it near SQLite's peak (700 failed one run in three): Db/Dialect.ts `streamBatch`.
 */
const LIST_BATCH = 1_000

/** Guests `GET /event/:id/guestlist?personIds=` answers at most (a change feed page's worth). */
export const MAX_PERSON_IDS = 100

/** The distinct ids of a `personIds` parameter, or a 400. */
const personIdsParam = (text: string) => {
  const ids = [...new Set(text.split(",").map((id) => id.trim()).filter((id) => id !== ""))]
  return ids.length === 0
    ? Effect.fail(InvalidRequest.at("personIds", "must name at least one person"))
    : ids.length > MAX_PERSON_IDS
    ? Effect.fail(InvalidRequest.at("personIds", `must name at most ${MAX_PERSON_IDS} persons`))
    : Effect.succeed(ids)
}

export class GuestLists extends Effect.Service<GuestLists>()("Convene/GuestLists", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const streams = yield* StreamSlots
    const repo = yield* GuestsRepo
    const payments = yield* PaymentReads
    const events = yield* Events
    const origin = yield* PublicOrigin
    const renderer = yield* GuestRenderer
    const queries = yield* GuestListQueries
    const writes = yield* GuestListWrites
    const invites = yield* GuestInvites
    const csv = yield* GuestsCsv
    const approvals = yield* Approvals
    const listBatch = dialectOf(sql).streamBatch(LIST_BATCH)

    /**
     * The list's guests as the database writes their JSON (GuestJson.ts), in batches; on a
     * ticketed event, for a caller who sees payments, each batch's guests end with their own
     * payments, read for that batch.
     */
    const listJson = (caller: Caller, event: EventRow) => {
      const tail = sharedTail(caller.role, event.ticketing_enabled === 1)
      const batches = repo.jsonOfEvent(event.id, listBatch, { linkOpen: rsvpLinkOpen(origin.rsvpLinkPrefix(event.slug)), tail: tail ?? "" })
      return tail !== undefined
        ? Stream.map(batches, (rows) => rows.map((row) => asJsonText<Guest>(row.json)))
        : Stream.mapEffect(batches, (rows) =>
          Effect.map(payments.ofPersons(event.id, rows.map((row) => row.person_id)), (found) => {
            const paid = guestPayments(found)
            return rows.map((row) => asJsonText<Guest>(row.json + paymentTail(paid.get(row.person_id) ?? noPurchase)))
          }))
    }

    /**
     * Every guest of the list (removed ones excluded), in batches read from one snapshot, for an
     * answer written as it is read. The event is found first: an unknown or foreign one fails
     * here, before anything is sent. Each batch comes with its own guests' payments. With
     * `personIds` (1 to `MAX_PERSON_IDS`), only those guests: ids not on the list are left out.
     */
    const list = Effect.fn("GuestLists.list")(function*(caller: Caller, eventId: string, params: { readonly personIds?: string | undefined } = {}) {
      const wanted = params.personIds === undefined ? undefined : yield* personIdsParam(params.personIds)
      const event = yield* events.find(caller, eventId)
      if (wanted !== undefined) {
        // just these guests (a client resyncing what the change feed named): one batch
        const found = yield* repo.search(event.id, { _tag: "PersonIds", personIds: wanted }, MAX_PERSON_IDS, 0).pipe(Effect.orDie)
        return Stream.fromEffect(Effect.map(renderer.loadByIds(caller, event, found.ids), ({ guests }) => guests.map(jsonText)))
      }
      // a share of the streamed answers, held until the answer ends (Http/StreamSlots.ts)
      return yield* streams.snapshot(caller.organizationId, listJson(caller, event))
    })

    return {
      list,
      search: queries.search,
      add: writes.add,
      update: writes.update,
      remove: writes.remove,
      /** Approves or declines registrations awaiting approval (Approvals.ts). */
      decide: approvals.decide,
      render: renderer.render,
      counts: queries.counts,
      page: queries.page,
      guest: queries.guest,
      ensureInviteTokens: invites.ensureInviteTokens,
      recordAnswer: invites.recordAnswer,
      claimLinkEmail: invites.claimLinkEmail,
      /** The list as CSV, streamed (GuestsCsv.ts). */
      exportCsv: csv.exportCsv,
      /** A CSV import into the list (GuestsCsv.ts). */
      importCsv: csv.importCsv
    } as const
  }),
  dependencies: [
    GuestsRepo.Default,
    PaymentReads.Default,
    Events.Default,
    PublicOrigin.Default,
    GuestRenderer.Default,
    GuestListQueries.Default,
    GuestListWrites.Default,
    GuestInvites.Default,
    GuestsCsv.Default,
    Approvals.Default,
    StreamSlots.Default
  ]
}) {}
