/**
 * Guest lists (docs/integrators.md#guest-lists): reading, search,
 * and atomic batches that add, update and remove guests. Every batch runs in one transaction:
 * an invalid item anywhere leaves nothing applied. The only writer of guests: the persons a batch
 * names are found, created and filled by Persons (`PersonWrites`), and the RSVP page records a
 * guest's own answer here (`recordAnswer`).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { Changes } from "../Changes/Changes.js"
import { type ChangeEntry, guestChange, personChange } from "../Changes/Domain.js"
import { DirectSql } from "../Db/DirectSql.js"
import type { Caller } from "../Domain/Caller.js"
import { Ids } from "../Domain/Ids.js"
import type { GuestRowId, OrganizationRowId, PersonRowId } from "../Domain/RowIds.js"
import { blankToNull, trimToNull } from "../Domain/Fields.js"
import { nowIso } from "../Domain/Time.js"
import { customColumnsOf } from "../Events/EventJson.js"
import { Events } from "../Events/Events.js"
import type { EventRow } from "../Events/EventsRepo.js"
import { Conflict, Forbidden, InvalidRequest, NotFound } from "../Domain/Errors.js"
import { asJsonText, jsonText } from "../Http/JsonText.js"
import { StreamSlots } from "../Http/StreamSlots.js"
import { guestPayments, noPurchase } from "../Payments/GuestPayments.js"
import { PaymentsRepo } from "../Payments/PaymentsRepo.js"
import { PersonWrites } from "../Persons/PersonWrites.js"
import { PublicOrigin } from "../PublicOrigin.js"
import { onUniqueViolation } from "../SqlErrors.js"
import { columnChanges, type GuestListChange, statusChange } from "./Changes.js"
import {
  type Guest,
  type GuestUpdate,
  HISTORY_FULL,
  isRsvpStatus,
  MAX_HISTORY_ENTRIES,
  type NewGuest,
  type QuestionResponse,
  type RsvpStatus
} from "./Domain.js"
import { GuestNotifications } from "./GuestNotifications.js"
import { GuestsCsv } from "./GuestsCsv.js"
import { type GuestPageQuery, type GuestRow, GuestsRepo } from "./GuestsRepo.js"
import { paymentTail, rsvpLinkOpen, sharedTail } from "./GuestJson.js"
import { renderGuests, seesPayments } from "./GuestView.js"
import { searchFilter, type SearchParams } from "./Search.js"

/**
 * Guests per batch of a whole list: a list of a thousand takes a handful of statements, and one
 * batch's JSON texts (about 700 KB) stay far below the heap whatever the list's size.
 * On PostgreSQL, half as many: there the first whole read of a 40,000-guest list peaked 12-18 MB
 * of live heap above SQLite's with batches of 1,000, past test/slow/large-answers.test.ts's 64 MB heap
 * (measured, cause not pinned down: the driver's reads are asynchronous where SQLite's are not);
 * 500 hold it near SQLite's peak (700 failed one run in three).
 */
const LIST_BATCH = 1_000
const PG_LIST_BATCH = 500

/** What a guest answers on the RSVP page, as `recordAnswer` stores it. */
export interface RsvpAnswer {
  readonly rsvpStatus: RsvpStatus
  readonly responses: ReadonlyArray<QuestionResponse>
  readonly dietaryRestrictions: ReadonlyArray<string>
  readonly note: string
}

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
    const direct = yield* DirectSql
    const streams = yield* StreamSlots
    const repo = yield* GuestsRepo
    const personWrites = yield* PersonWrites
    const payments = yield* PaymentsRepo
    const events = yield* Events
    const origin = yield* PublicOrigin
    const notifications = yield* GuestNotifications
    const ids = yield* Ids
    const csv = yield* GuestsCsv
    const changeFeed = yield* Changes
    const onPostgres = sql.onDialectOrElse({ pg: () => true, orElse: () => false })
    const listBatch = onPostgres ? PG_LIST_BATCH : LIST_BATCH

    /** A batch applies whole or not at all; a unique-key race with another writer asks for a retry. */
    const oneBatch = <A, E, R>(batch: Effect.Effect<A, E, R>) =>
      batch.pipe(sql.withTransaction, onUniqueViolation(() => InvalidRequest.at("guests", "conflicts with a concurrent change; retry")))

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

    const loadByIds = (caller: Caller, event: EventRow, guestIds: ReadonlyArray<GuestRowId>) =>
      Effect.gen(function*() {
        const rows = yield* repo.byIds(guestIds)
        const order = new Map(guestIds.map((id, i) => [id, i]))
        const sorted = [...rows].sort((a, b) => order.get(a.gid)! - order.get(b.gid)!)
        return { rows: sorted, guests: yield* render(caller, event, sorted) }
      })

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
        return Stream.fromEffect(Effect.map(loadByIds(caller, event, found.ids), ({ guests }) => guests.map(jsonText)))
      }
      // a share of the streamed answers, held until the answer ends (Http/StreamSlots.ts)
      return yield* streams.snapshot(caller.organizationId, listJson(caller, event))
    })

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
          const linkless = current.filter((r) => r.token === null)
          for (const row of linkless) {
            yield* repo.addInvite(row.gid, yield* ids.secret(24), at)
          }
          // a new rsvpLink changes the guest as the API shows it
          yield* changeFeed.record(caller.organizationId, linkless.map((row) => guestChange("updated", row.public_id, event.public_id)))
        }
        const { guests } = yield* loadByIds(caller, event, page.ids)
        return { guests, total: page.total, limit, skip }
      }).pipe(transaction, Effect.orDie)
    })

    /** Adds guests: existing persons by id, or by email (matched among active persons, else created). */
    const add = Effect.fn("GuestLists.add")(function*(caller: Caller, eventId: string, items: ReadonlyArray<NewGuest>) {
      const event = yield* events.find(caller, eventId)
      const at = yield* nowIso
      const newIds = yield* Effect.forEach(items, () => ids.uuid)
      return yield* Effect.gen(function*() {
        const guestIds: Array<GuestRowId> = []
        const affected: Array<GuestRowId> = []
        const created = new Set<string>()
        const filled = new Set<string>()
        const added: Array<ChangeEntry> = []
        for (const [i, item] of items.entries()) {
          const phone = blankToNull(item.phoneNumber)
          const company = blankToNull(item.company)
          const position = blankToNull(item.position)
          let personId: PersonRowId
          let publicId: string
          if (item.personId !== undefined) {
            const found = yield* personWrites.idOf(caller.organizationId, item.personId)
            if (found === undefined) return yield* InvalidRequest.at(`guests.${i}.personId`, "is not a known person")
            personId = found
            publicId = item.personId
          } else {
            const person = yield* personWrites.activeByEmailOrCreate(caller.organizationId, {
              publicId: newIds[i]!,
              firstName: item.firstName!,
              lastName: item.lastName!,
              email: item.email!,
              company,
              position
            }, at)
            personId = person.id
            publicId = person.publicId
            if (person.created) created.add(publicId)
          }
          const link = yield* repo.link({ eventId: event.id, personId })
          if (Option.isSome(link) && link.value.removed_at === null) {
            // already on the list: nothing changes for that guest, which is returned as it is
            if (!guestIds.includes(link.value.id)) guestIds.push(link.value.id)
            continue
          }
          // phoneNumber, company and position fill blanks only; existing values are never overwritten
          if (yield* personWrites.fillBlanks(personId, { company, position, phone }, at)) filled.add(publicId)
          // a guest back on the list gets an `Invited` entry: not past a full history
          if (Option.isSome(link) && link.value.history_entries >= MAX_HISTORY_ENTRIES) {
            return yield* new Conflict({ message: `guests.${i}: this guest ${HISTORY_FULL}` })
          }
          let guestId: GuestRowId
          if (Option.isNone(link)) {
            guestId = yield* repo.insertLink(event.id, personId, at)
          } else {
            guestId = link.value.id
            yield* repo.readd(guestId, at)
          }
          affected.push(guestId)
          added.push(guestChange("created", publicId, event.public_id))
          yield* repo.addHistory({ guestId, status: "Invited", actorType: caller.actor.type, actorId: caller.actor.id, actionType: "added", at })
          if (!guestIds.includes(guestId)) guestIds.push(guestId)
        }
        const loaded = yield* loadByIds(caller, event, guestIds)
        const change: GuestListChange = {
          event,
          ...loaded,
          at,
          affected,
          added: affected.length,
          updated: 0,
          removed: 0,
          statusChanges: []
        }
        yield* notifications.guestListChanged(caller.organizationId, change)
        yield* changeFeed.record(caller.organizationId, [
          ...[...created].map((id) => personChange("created", id)),
          ...[...filled].filter((id) => !created.has(id)).map((id) => personChange("updated", id)),
          ...added
        ])
        return change
      }).pipe(oneBatch)
    })

    // untraced: the hottest write pays no span or stack capture (bench/RESULTS.md, issue 18)
    const update = Effect.fnUntraced(function*(caller: Caller, eventId: string, items: ReadonlyArray<GuestUpdate>) {
      const event = yield* events.find(caller, eventId)
      const columns = new Set(customColumnsOf(event))
      for (const [i, item] of items.entries()) {
        const unknown = Object.keys(item.customColumns ?? {}).find((title) => !columns.has(title))
        if (unknown !== undefined) {
          return yield* InvalidRequest.at(`guests.${i}.customColumns.${unknown}`, "is not a custom column of the event")
        }
      }
      const at = yield* nowIso
      return yield* Effect.gen(function*() {
        const links = yield* repo.activeLinks(event.id, caller.organizationId, items.map((item) => item.personId))
        const missing = items.findIndex((item) => !links.has(item.personId))
        if (missing !== -1) return yield* InvalidRequest.at(`guests.${missing}.personId`, "is not on the guest list")
        // the links as the batch goes, so several items for one guest build on each other
        const state = new Map([...links.values()].map((l) => [l.id, { ...l }]))
        const before = new Map([...links.values()].map((l) => [l.id, l]))
        const guestIds: Array<GuestRowId> = []
        const affected = new Set<GuestRowId>()
        /** History entries per guest, those of this batch included. */
        const entries = new Map([...links.values()].map((l) => [l.id, l.history_entries]))
        for (const [i, item] of items.entries()) {
          const link = state.get(links.get(item.personId)!.id)!
          const changes = columnChanges(item, link)
          const differs = Object.entries(changes).some(([column, value]) => link[column as keyof typeof link] !== value)
          // every RSVP update is recorded, even when the status is unchanged, up to a full history
          if (item.rsvpStatus !== undefined) {
            const held = entries.get(link.id)!
            if (held >= MAX_HISTORY_ENTRIES) return yield* new Conflict({ message: `guests.${i}: this guest ${HISTORY_FULL}` })
            entries.set(link.id, held + 1)
            yield* repo.addHistory({
              guestId: link.id,
              status: item.rsvpStatus,
              actorType: caller.actor.type,
              actorId: caller.actor.id,
              actionType: "updated",
              at
            })
          }
          if (item.rsvpStatus !== undefined || differs) affected.add(link.id)
          if (differs) yield* repo.update(link.id, changes, at)
          Object.assign(link, changes)
          if (!guestIds.includes(link.id)) guestIds.push(link.id)
        }
        const statusChanges = guestIds.flatMap((id) => statusChange(id, before.get(id)!, state.get(id)!))
        const loaded = yield* loadByIds(caller, event, guestIds)
        const change: GuestListChange = {
          event,
          ...loaded,
          at,
          affected: guestIds.filter((id) => affected.has(id)),
          added: 0,
          updated: affected.size,
          removed: 0,
          statusChanges
        }
        yield* notifications.guestListChanged(caller.organizationId, change)
        const personIdOf = new Map([...links].map(([personId, link]) => [link.id, personId]))
        yield* changeFeed.record(
          caller.organizationId,
          change.affected.map((id) => guestChange("updated", personIdOf.get(id)!, event.public_id))
        )
        return change
      }).pipe(oneBatch)
    })

    /** Removes guests; a known person who is not on the list is ignored. */
    const remove = Effect.fn("GuestLists.remove")(function*(caller: Caller, eventId: string, items: ReadonlyArray<{ readonly personId: string }>) {
      const event = yield* events.find(caller, eventId)
      const at = yield* nowIso
      return yield* Effect.gen(function*() {
        const guestIds: Array<GuestRowId> = []
        const removed: Array<ChangeEntry> = []
        for (const [i, item] of items.entries()) {
          const personId = yield* personWrites.idOf(caller.organizationId, item.personId)
          if (personId === undefined) return yield* InvalidRequest.at(`guests.${i}.personId`, "is not a known person")
          const link = yield* repo.link({ eventId: event.id, personId })
          if (Option.isSome(link) && link.value.removed_at === null && !guestIds.includes(link.value.id)) {
            guestIds.push(link.value.id)
            removed.push(guestChange("removed", item.personId, event.public_id))
          }
        }
        const loaded = yield* loadByIds(caller, event, guestIds)
        yield* repo.remove(guestIds, at)
        const change: GuestListChange = {
          event,
          ...loaded,
          at,
          affected: guestIds,
          added: 0,
          updated: 0,
          removed: guestIds.length,
          statusChanges: []
        }
        yield* notifications.guestListChanged(caller.organizationId, change)
        yield* changeFeed.record(caller.organizationId, removed)
        return change
      }).pipe(oneBatch)
    })

    /** The guest list at a glance: guests per RSVP status, checked in, and in all. */
    const counts = Effect.fn("GuestLists.counts")(function*(caller: Caller, eventId: string) {
      const event = yield* events.find(caller, eventId)
      const rows = yield* repo.counts(event.id).pipe(Effect.orDie)
      const byStatus: Record<RsvpStatus, number> = { Invited: 0, Accepted: 0, Declined: 0, Maybe: 0, Waitlisted: 0 }
      /** Checked-in guests by their RSVP status (who came after saying yes, who came anyway). */
      const attendedByStatus: Record<RsvpStatus, number> = { Invited: 0, Accepted: 0, Declined: 0, Maybe: 0, Waitlisted: 0 }
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
        const { guests, rows } = yield* loadByIds(caller, event, found.ids)
        return { event, guests, rows, total: found.total, limit: query.limit, skip: query.skip }
      }).pipe(Effect.orDie)
    })

    /** One guest of the list, as the API renders it, with its row (history with action types); 404 when not on it. */
    const guest = Effect.fn("GuestLists.guest")(function*(caller: Caller, eventId: string, personId: string) {
      const event = yield* events.find(caller, eventId)
      const links = yield* repo.activeLinks(event.id, caller.organizationId, [personId]).pipe(Effect.orDie)
      const link = links.get(personId)
      if (link === undefined) return yield* new NotFound({ message: `Guest ${personId} not found` })
      const loaded = yield* loadByIds(caller, event, [link.id]).pipe(Effect.orDie)
      return { event, guest: loaded.guests[0]!, row: loaded.rows[0]! }
    })

    /**
     * The RSVP link token of each given guest of the event (`gid`: its guest link, `public_id`: its
     * person), created where missing as `generateRsvpLinks` does; stable once created. A new link
     * is a change of the guest (its `rsvpLink`). Runs in the caller's transaction.
     */
    const ensureInviteTokens = (
      organizationId: OrganizationRowId,
      event: EventRow,
      guests: ReadonlyArray<{ readonly gid: GuestRowId; readonly public_id: string }>
    ) =>
      Effect.gen(function*() {
        const tokens = yield* repo.inviteTokens(guests.map((g) => g.gid))
        const at = yield* nowIso
        const linked: Array<ChangeEntry> = []
        for (const guest of guests) {
          if (tokens.has(guest.gid)) continue
          const token = yield* ids.secret(24)
          yield* repo.addInvite(guest.gid, token, at)
          tokens.set(guest.gid, token)
          linked.push(guestChange("updated", guest.public_id, event.public_id))
        }
        yield* changeFeed.record(organizationId, linked)
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
        ? Effect.fail(new Conflict({ message: `This guest ${HISTORY_FULL}` }))
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
      list,
      search,
      add,
      update,
      remove,
      render,
      counts,
      page,
      guest,
      ensureInviteTokens,
      recordAnswer,
      /** The list as CSV, streamed (GuestsCsv.ts). */
      exportCsv: csv.exportCsv,
      /** A CSV import into the list (GuestsCsv.ts). */
      importCsv: csv.importCsv
    } as const
  }),
  dependencies: [
    GuestsRepo.Default,
    PersonWrites.Default,
    PaymentsRepo.Default,
    Events.Default,
    PublicOrigin.Default,
    GuestNotifications.Default,
    Ids.Default,
    GuestsCsv.Default,
    Changes.Default,
    StreamSlots.Default
  ]
}) {}
