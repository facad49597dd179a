/**
 * Reading a guest list beyond the list itself (GuestLists.ts): the API's search (which may give
 * the guests it finds their RSVP links), the counts at a glance, the dashboard's pages and one
 * guest. Guests are rendered as the API renders them (GuestRenderer.ts).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"
import { DirectSql } from "../Db/DirectSql.js"
import type { Caller } from "../Domain/Caller.js"
import { Forbidden, NotFound } from "../Domain/Errors.js"
import { nowIso } from "../Domain/Time.js"
import { Events } from "../Events/Events.js"
import { isRsvpStatus, seesPayments, zeroByStatus } from "./Domain.js"
import { GuestInvites } from "./GuestInvites.js"
import { GuestRenderer } from "./GuestRenderer.js"
import { type GuestPageQuery, GuestsRepo } from "./GuestsRepo.js"
import { searchFilter, type SearchParams } from "./Search.js"

export class GuestListQueries extends Effect.Service<GuestListQueries>()("Convene/GuestListQueries", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const direct = yield* DirectSql
    const repo = yield* GuestsRepo
    const renderer = yield* GuestRenderer
    const invites = yield* GuestInvites
    const events = yield* Events

    const search = Effect.fn("GuestLists.search")(function*(caller: Caller, eventId: string, params: SearchParams) {
      // the role check comes before request validation (docs/integrators.md#the-order-of-checks)
      if (params.generateRsvpLinks === true && !seesPayments(caller.role)) {
        return yield* new Forbidden({ message: "Creating RSVP links needs the Team Member role or above" })
      }
      const filter = yield* searchFilter(params)
      const limit = params.limit ?? 25
      const skip = params.skip ?? 0
      const event = yield* events.find(caller, eventId)
      const page = yield* repo.search(event.id, filter, limit, skip).pipe(Effect.orDie)
      const at = yield* nowIso
      const generates = params.generateRsvpLinks === true && event.slug !== null
      // only a search that writes (RSVP links) is a write transaction, which takes the write lock;
      // a plain search reads its guests (and their payments) in one read transaction, which takes
      // none: beside an import's transaction rather than after it, on either engine
      const transaction = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E | SqlError, R> =>
        generates ? sql.withTransaction(self) : direct.readTransaction(self)
      return yield* Effect.gen(function*() {
        if (generates) {
          const current = yield* repo.byIds(page.ids)
          yield* invites.addInvites(caller.organizationId, event, current.filter((r) => r.token === null), at)
        }
        const { guests } = yield* renderer.loadByIds(caller, event, page.ids)
        return { guests, total: page.total, limit, skip }
      }).pipe(transaction, Effect.orDie)
    })

    /** The guest list at a glance: guests per RSVP status, checked in, and in all. */
    const counts = Effect.fn("GuestLists.counts")(function*(caller: Caller, eventId: string) {
      const event = yield* events.find(caller, eventId)
      const rows = yield* repo.counts(event.id).pipe(Effect.orDie)
      const byStatus = zeroByStatus()
      /** Checked-in guests by their RSVP status (who came after saying yes, who came anyway). */
      const attendedByStatus = zeroByStatus()
      let attended = 0
      for (const row of rows) {
        if (isRsvpStatus(row.rsvp_status)) {
          byStatus[row.rsvp_status] = row.n
          attendedByStatus[row.rsvp_status] = row.attended
        }
        attended += row.attended
      }
      const total = rows.reduce((sum, row) => sum + row.n, 0)
      return { byStatus, attended, attendedByStatus, total } as const
    })

    /**
     * A page of the list for the dashboard: filtered by RSVP status or attendance, searched by
     * name or email, in the list's order or by name, with how many match in all. Guests are
     * rendered as the API renders them.
     */
    const page = Effect.fn("GuestLists.page")(function*(caller: Caller, eventId: string, query: GuestPageQuery) {
      const event = yield* events.find(caller, eventId)
      return yield* Effect.gen(function*() {
        const found = yield* repo.page(event.id, query)
        const { guests, rows } = yield* renderer.loadByIds(caller, event, found.ids)
        return { event, guests, rows, total: found.total, limit: query.limit, skip: query.skip }
      }).pipe(Effect.orDie)
    })

    /** One guest of the list, as the API renders it, with its row (history with action types); 404 when not on it. */
    const guest = Effect.fn("GuestLists.guest")(function*(caller: Caller, eventId: string, personId: string) {
      const event = yield* events.find(caller, eventId)
      const links = yield* repo.activeLinks(event.id, caller.organizationId, [personId]).pipe(Effect.orDie)
      const link = links.get(personId)
      if (link === undefined) return yield* new NotFound({ message: `Guest ${personId} not found` })
      const loaded = yield* renderer.loadByIds(caller, event, [link.id]).pipe(Effect.orDie)
      return { event, guest: loaded.guests[0]!, row: loaded.rows[0]! }
    })

    return { search, counts, page, guest } as const
  }),
  dependencies: [GuestsRepo.Default, GuestRenderer.Default, GuestInvites.Default, Events.Default]
}) {}
