/**
 * The statements of a guest-list import (GuestsCsv.ts): their batch sizes, and the rows of its
 * writes serialized ahead of its transaction (each batch a JSON array for `json_each`), with what it
 * records in the change feed.
 */
import * as Effect from "effect/Effect"
import { type ChangeEntry, guestChange, personChange } from "../Changes/Domain.js"
import { inSlices } from "../Csv/Chunks.js"
import { filledPersonsBatch, firstPhonesBatch, importedColumns, newPersonsBatch } from "../Persons/PersonBatches.js"
import type { GuestPlan, PlannedGuest } from "./GuestImportPlan.js"
import { historyBatch, type ImportLinkRow, linkChecksBatch, linkUpdatesBatch, type NewHistory, newLinksBatch } from "./GuestsRepo.js"

/** Emails (and persons) looked up per statement when an import matches its rows. */
export const MATCH_BATCH = 5_000
/** Rows per statement of an import's transaction. */
const WRITE_BATCH = 2_000

/** A new contact's values in `importedColumns` order. */
const personValues = (fields: { readonly firstName?: string; readonly lastName?: string; readonly company: string | null; readonly position: string | null }) =>
  importedColumns.map((column) => {
    switch (column) {
      case "first_name":
        return fields.firstName ?? null
      case "last_name":
        return fields.lastName ?? null
      case "company":
        return fields.company
      case "position":
        return fields.position
      default:
        return null
    }
  })

/** The guests a plan writes to, by kind of write. */
const writesOf = (plan: GuestPlan) => {
  const fresh: Array<PlannedGuest> = []
  const updates: Array<PlannedGuest & { readonly link: ImportLinkRow }> = []
  const checks: Array<PlannedGuest & { readonly link: ImportLinkRow }> = []
  const history: Array<NewHistory> = []
  for (const guest of plan.guests) {
    if (guest.mode !== "listed") history.push({ emailKey: guest.emailKey, status: "Invited", actionType: "added" })
    for (const status of guest.history) history.push({ emailKey: guest.emailKey, status, actionType: "updated" })
    if (guest.mode === "new") fresh.push(guest)
    else if (guest.link !== undefined) {
      const linked = guest as PlannedGuest & { readonly link: ImportLinkRow }
      const { dietary_restrictions, rsvp_note, custom_columns, rsvp_status, attendance_status } = guest.values
      const start = guest.start
      const differs = rsvp_status !== start.rsvp_status || attendance_status !== start.attendance_status ||
        dietary_restrictions !== start.dietary_restrictions || rsvp_note !== start.rsvp_note || custom_columns !== start.custom_columns
      if (guest.mode === "readd" || differs) updates.push(linked)
      else if (guest.history.length > 0) checks.push(linked)
    }
  }
  return { fresh, updates, checks, history }
}

/**
 * What an import records in the change feed: the contacts it created or filled, and the guests it
 * put on the list (also back on it) or changed, a new history entry included. `createdIds` are the
 * personIds given to the contacts it creates, by email key.
 */
const recordedOf = (plan: GuestPlan, writes: ReturnType<typeof writesOf>, createdIds: ReadonlyMap<string, string>, eventId: string) => {
  const personIdOf = (guest: PlannedGuest) => guest.personId ?? createdIds.get(guest.emailKey)!
  const entries: Array<ChangeEntry> = [
    ...[...createdIds.values()].map((id) => personChange("created", id)),
    ...plan.fills.map((fill) => personChange("updated", fill.match.public_id))
  ]
  for (const guest of writes.fresh) entries.push(guestChange("created", personIdOf(guest), eventId))
  for (const guest of writes.updates) entries.push(guestChange(guest.mode === "readd" ? "created" : "updated", personIdOf(guest), eventId))
  for (const guest of writes.checks) entries.push(guestChange("updated", personIdOf(guest), eventId))
  return entries
}

/**
 * A plan's statements, their rows serialized ahead (each batch a JSON array for `json_each`),
 * so that the transaction only runs set-based statements of `WRITE_BATCH` rows. `uuid` makes the
 * personIds of the contacts the import creates.
 */
export const prepareStatements = (plan: GuestPlan, eventId: string, uuid: Effect.Effect<string>) =>
  Effect.gen(function*() {
    const writes = writesOf(plan)
    const createdIds = new Map<string, string>()
    const creates = yield* inSlices(plan.creates, WRITE_BATCH, (slice) =>
      Effect.map(Effect.forEach(slice, () => uuid), (publicIds) => {
        slice.forEach((person, i) => createdIds.set(person.emailKey, publicIds[i]!))
        return newPersonsBatch(slice.map((person, i) => ({ publicId: publicIds[i]!, email: person.email, values: personValues(person) })))
      }))
    const fills = yield* inSlices(plan.fills.filter((f) => f.company !== null || f.position !== null), WRITE_BATCH, (slice) =>
      Effect.sync(() => filledPersonsBatch(slice.map((f) => ({ id: f.match.id, emailKey: f.match.email_key, values: personValues(f) })))))
    const phones = yield* inSlices(
      [
        ...plan.creates.flatMap((p) => (p.phone === null ? [] : [{ emailKey: p.emailKey, number: p.phone }])),
        ...plan.fills.flatMap((f) => (f.phone === null ? [] : [{ emailKey: f.match.email_key, number: f.phone }]))
      ],
      WRITE_BATCH,
      (slice) => Effect.sync(() => firstPhonesBatch(slice))
    )
    const links = yield* inSlices(writes.fresh, WRITE_BATCH, (slice) =>
      Effect.sync(() => newLinksBatch(slice.map((g) => ({ emailKey: g.emailKey, values: g.values })))))
    const updates = yield* inSlices(writes.updates, WRITE_BATCH, (slice) =>
      Effect.sync(() =>
        linkUpdatesBatch(slice.map((g) => ({
          id: g.link.id,
          // a removed guest is expected as it was removed; one on the list as it was found
          expected: g.mode === "readd" ? g.link : g.start,
          removedAt: g.link.removed_at,
          values: g.values
        })))
      ))
    const checks = yield* inSlices(writes.checks, WRITE_BATCH, (slice) =>
      Effect.sync(() => linkChecksBatch(slice.map((g) => ({ id: g.link.id, expected: g.start })))))
    const history = yield* inSlices(writes.history, WRITE_BATCH, (slice) => Effect.sync(() => historyBatch(slice)))
    const recorded = recordedOf(plan, writes, createdIds, eventId)
    return { creates, fills, phones, links, updates, checks, history, recorded }
  })
