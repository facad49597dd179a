/**
 * Atomic batches that add, update and remove guests (docs/integrators.md#guest-lists). Every batch
 * runs in one transaction: an invalid item anywhere leaves nothing applied. The persons a batch
 * names are found, created and filled by Persons (`PersonWrites`). Each batch notifies
 * (GuestNotifications.ts) and records its changes in the change feed in its transaction; one that
 * frees places fills them from the waitlist there too (WaitlistPromotion.ts).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { Changes } from "../Changes/Changes.js"
import { type ChangeEntry, guestChange, personChange } from "../Changes/Domain.js"
import type { Caller } from "../Domain/Caller.js"
import { InvalidRequest } from "../Domain/Errors.js"
import { blankToNull } from "../Domain/Fields.js"
import { Ids } from "../Domain/Ids.js"
import type { GuestRowId, PersonRowId } from "../Domain/RowIds.js"
import { nowIso } from "../Domain/Time.js"
import { Events } from "../Events/Events.js"
import type { EventRow } from "../Events/EventRow.js"
import { onUniqueViolation } from "../Db/SqlErrors.js"
import { PersonWrites } from "../Persons/PersonWrites.js"
import { columnChanges, type GuestListChange, guestListChange, statusChange, type WriteCounts } from "./Changes.js"
import { type GuestUpdate, historyFull, MAX_HISTORY_ENTRIES, type NewGuest } from "./Domain.js"
import { GuestNotifications } from "./GuestNotifications.js"
import { GuestRenderer } from "./GuestRenderer.js"
import { GuestsRepo } from "./GuestsRepo.js"
import { unknownColumn } from "./UnknownColumn.js"
import { type Registration, registeredStatus, registrationColumns } from "./Registration.js"
import { GuestStatusEmails } from "./StatusEmails.js"
import { newsOf } from "./StatusMail.js"
import { freesPlace } from "./Waitlist.js"
import { limitsPlaces, WaitlistPromotion } from "./WaitlistPromotion.js"

export class GuestListWrites extends Effect.Service<GuestListWrites>()("Convene/GuestListWrites", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* GuestsRepo
    const renderer = yield* GuestRenderer
    const personWrites = yield* PersonWrites
    const events = yield* Events
    const notifications = yield* GuestNotifications
    const ids = yield* Ids
    const changeFeed = yield* Changes
    const waitlist = yield* WaitlistPromotion
    const statusEmails = yield* GuestStatusEmails

    /** A batch applies whole or not at all; a unique-key race with another writer asks for a retry. */
    const oneBatch = <A, E, R>(batch: Effect.Effect<A, E, R>) =>
      batch.pipe(sql.withTransaction, onUniqueViolation(() => InvalidRequest.at("guests", "conflicts with a concurrent change; retry")))

    /**
     * A batch's end, in its transaction: its guests loaded as the API renders them, its
     * notifications, and the change feed's `entries` (made from the change).
     */
    const published = (
      caller: Caller,
      event: EventRow,
      guestIds: ReadonlyArray<GuestRowId>,
      at: string,
      did: WriteCounts,
      entries: (change: GuestListChange) => ReadonlyArray<ChangeEntry>
    ) =>
      Effect.gen(function*() {
        const change = guestListChange(event, yield* renderer.loadByIds(caller, event, guestIds), at, did)
        yield* notifications.guestListChanged(caller.organizationId, change)
        yield* changeFeed.record(caller.organizationId, entries(change))
        return change
      })

    /**
     * Adds guests: existing persons by id, or by email (matched among active persons, else created).
     * With a `registration`, the guests sign themselves up on the public page (Registration.ts).
     */
    const add = Effect.fn("GuestLists.add")(function*(caller: Caller, eventId: string, items: ReadonlyArray<NewGuest>, registration?: Registration) {
      const event = yield* events.find(caller, eventId)
      const at = yield* nowIso
      const newIds = yield* Effect.forEach(items, () => ids.uuid)
      return yield* Effect.gen(function*() {
        // a registration's places, counted in this transaction and taken as guests are added
        const places = { capacityEnabled: limitsPlaces(event), capacity: event.capacity, accepted: 0 }
        if (registration !== undefined && places.capacityEnabled) places.accepted = yield* repo.acceptedCount(event.id)
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
          if (Option.isSome(link) && link.value.history_entries >= MAX_HISTORY_ENTRIES) return yield* historyFull(`guests.${i}`)
          let guestId: GuestRowId
          if (Option.isNone(link)) {
            guestId = yield* repo.insertLink(event.id, personId, at)
          } else {
            guestId = link.value.id
            yield* repo.readd(guestId, at)
          }
          affected.push(guestId)
          added.push(guestChange("created", publicId, event.public_id))
          if (registration === undefined) {
            yield* repo.addHistory({ guestId, status: "Invited", actorType: caller.actor.type, actorId: caller.actor.id, actionType: "added", at })
          } else {
            const status = registeredStatus(registration, places)
            if (status === "Accepted") places.accepted++
            yield* repo.update(guestId, registrationColumns(registration, status), at)
            yield* repo.addHistory({ guestId, status, actorType: "eventPerson", actorId: publicId, actionType: "added", at })
          }
          if (!guestIds.includes(guestId)) guestIds.push(guestId)
        }
        return yield* published(caller, event, guestIds, at, { affected, added: affected.length }, () => [
          ...[...created].map((id) => personChange("created", id)),
          ...[...filled].filter((id) => !created.has(id)).map((id) => personChange("updated", id)),
          ...added
        ])
      }).pipe(oneBatch)
    })

    // untraced: the hottest write pays no span or stack capture (bench/RESULTS.md, issue 18)
    const update = Effect.fnUntraced(function*(caller: Caller, eventId: string, items: ReadonlyArray<GuestUpdate>) {
      const event = yield* events.find(caller, eventId)
      const unknown = unknownColumn(event, items)
      if (unknown !== undefined) return yield* InvalidRequest.at(unknown, "is not a custom column of the event")
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
            if (held >= MAX_HISTORY_ENTRIES) return yield* historyFull(`guests.${i}`)
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
        const personIdOf = new Map([...links].map(([personId, link]) => [link.id, personId]))
        const did = { affected: guestIds.filter((id) => affected.has(id)), updated: affected.size, statusChanges }
        const change = yield* published(caller, event, guestIds, at, did, (change) =>
          change.affected.map((id) => guestChange("updated", personIdOf.get(id)!, event.public_id)))
        // approvals and declined approvals are told by email (CONTRACT §17), also through this PUT
        yield* statusEmails.tell(event, statusChanges.flatMap((s) => {
          const news = newsOf(s.previousStatus, s.rsvpStatus)
          return news === undefined ? [] : [{ guestId: s.guestId, news }]
        }))
        yield* waitlist.afterWrite(event, statusChanges.some((s) => freesPlace(s.previousStatus, s.rsvpStatus)), at)
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
        // the guests as they were when removed
        const loaded = yield* renderer.loadByIds(caller, event, guestIds)
        yield* repo.remove(guestIds, at)
        const change = guestListChange(event, loaded, at, { affected: guestIds, removed: guestIds.length })
        yield* notifications.guestListChanged(caller.organizationId, change)
        yield* changeFeed.record(caller.organizationId, removed)
        yield* waitlist.afterWrite(event, loaded.rows.some((row) => freesPlace(row.rsvp_status, undefined)), at)
        return change
      }).pipe(oneBatch)
    })

    return { add, update, remove } as const
  }),
  dependencies: [
    GuestsRepo.Default,
    GuestRenderer.Default,
    PersonWrites.Default,
    Events.Default,
    GuestNotifications.Default,
    Ids.Default,
    Changes.Default,
    WaitlistPromotion.Default,
    GuestStatusEmails.Default
  ]
}) {}
