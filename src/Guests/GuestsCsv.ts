/**
 * A guest list as CSV: the export, streamed from one snapshot like the JSON guest list, and the
 * import, which reads, validates, matches and plans before one short transaction of set-based
 * statements. The columns and row validation are in GuestsCsvColumns.ts, the rules of what a row
 * does in GuestImportPlan.ts, the CSV machinery in src/Csv/. `GuestLists` offers both as its own.
 *
 * Responsiveness, as for the contacts import: parsing and validation run in slices of about a
 * thousand rows with a turn of the event loop between them (Csv/CsvImport.ts), matching in
 * statements of `MATCH_BATCH` emails, and the transaction runs statements of `WRITE_BATCH` rows
 * whose parameters were all made before it, with a turn of the event loop between statements.
 *
 * Notifications, in the import's transaction, as one guest-list write makes them: ONE `GuestList`
 * notification for the whole import carrying every affected guest (each guest put on the list,
 * and each guest on it already that the import changed, a new history entry included), and an
 * `EventPerson` notification for each guest whose RSVP or attendance value really changed,
 * compared with the guest as it was before (a guest the import puts on the list starts as
 * `Invited`, as after a guest-list add). Guests are loaded for them in batches, and only when a
 * webhook is registered for that type.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { Changes } from "../Changes/Changes.js"
import { type ChangeEntry, guestChange, personChange } from "../Changes/Domain.js"
import { forEachSlice, inSlices, yieldToEventLoop } from "../Csv/Chunks.js"
import { attachmentName, csvDocument } from "../Csv/CsvExport.js"
import { type HeaderSpec, readCsv } from "../Csv/CsvImport.js"
import type { RowError } from "../Csv/ImportReport.js"
import { AppConfig } from "../Config/AppConfig.js"
import type { Caller } from "../Domain/Caller.js"
import type { EventRowId, GuestRowId, OrganizationRowId, PersonRowId } from "../Domain/RowIds.js"
import { Ids } from "../Domain/Ids.js"
import { nowIso } from "../Domain/Time.js"
import { Events } from "../Events/Events.js"
import type { EventRow } from "../Events/EventRow.js"
import { StreamSlots } from "../Http/StreamSlots.js"
import { Conflict } from "../Domain/Errors.js"
import { guestPayments, noPurchase } from "../Payments/GuestPayments.js"
import { PaymentReads } from "../Payments/PaymentReads.js"
import { filledPersonsBatch, firstPhonesBatch, importedColumns, type MatchRow, newPersonsBatch } from "../Persons/PersonBatches.js"
import { PersonWrites } from "../Persons/PersonWrites.js"
import { PublicOrigin } from "../Runtime/PublicOrigin.js"
import { onUniqueViolation } from "../Db/SqlErrors.js"
import { jsonArray, Outbox } from "../Webhooks/Outbox.js"
import { guestPlanner, type GuestPlan, type PlannedGuest } from "./GuestImportPlan.js"
import { eventPersonBody, type GuestSnapshot, guestListBody, snapshotOf } from "./GuestPayloads.js"
import { eventColumnsOf, exportColumns, type ExportRecord, type GuestInput, type GuestKey, importSpec, validateRow } from "./GuestsCsvColumns.js"
import {
  GuestsRepo,
  historyBatch,
  type ImportLinkRow,
  linkChecksBatch,
  linkUpdatesBatch,
  type NewHistory,
  newLinksBatch
} from "./GuestsRepo.js"
import { seesPayments } from "./Domain.js"
import { renderGuests } from "./GuestView.js"

/** Guests per batch of an export, as for the JSON list. */
const EXPORT_BATCH = 1_000
/** Emails (and persons) looked up per statement when an import matches its rows. */
const MATCH_BATCH = 5_000
/** Rows per statement of an import's transaction. */
const WRITE_BATCH = 2_000
/** Rows planned between two turns of the event loop. */
const PLAN_SLICE = 2_000
/** Guests loaded (and rendered) at once for an import's notifications. */
const NOTIFY_BATCH = 250
/** Attempts of an import planned before its transaction, before one planned inside it. */
const OPTIMISTIC_ATTEMPTS = 2

/** Between an import's plan and its transaction, another write touched the same contacts or guests. */
class ImportRaced extends Data.TaggedError("ImportRaced") {}

export interface GuestImportReport {
  readonly dryRun: boolean
  readonly rows: number
  readonly created: number
  readonly updated: number
  readonly unchanged: number
  readonly added: number
  readonly errors: ReadonlyArray<RowError>
  readonly errorsOmitted?: number
  readonly unknownColumns: ReadonlyArray<string>
}

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

export class GuestsCsv extends Effect.Service<GuestsCsv>()("Convene/GuestsCsv", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const streams = yield* StreamSlots
    const repo = yield* GuestsRepo
    const personWrites = yield* PersonWrites
    const payments = yield* PaymentReads
    const events = yield* Events
    const origin = yield* PublicOrigin
    const outbox = yield* Outbox
    const ids = yield* Ids
    const config = yield* AppConfig
    const changeFeed = yield* Changes

    /**
     * The event's guest list as a CSV document, read in keyset batches from one snapshot and
     * written as it is read; each batch with its guests' payments when the caller sees them.
     * The event is found first: an unknown or foreign one fails here, before anything is sent.
     */
    const exportCsv = Effect.fn("GuestsCsv.exportCsv")(function*(caller: Caller, eventId: string) {
      const event = yield* events.find(caller, eventId)
      const date = (yield* nowIso).slice(0, 10)
      const withPayments = event.ticketing_enabled === 1 && seesPayments(caller.role)
      const batches = repo.exportOfEvent(event.id, EXPORT_BATCH).pipe(
        Stream.mapEffect((rows) =>
          withPayments
            ? Effect.map(payments.ofPersons(event.id, rows.map((r) => r.person_id)), (data) => {
              const paid = guestPayments(data)
              return rows.map((row): ExportRecord => ({ row, payment: paid.get(row.person_id) ?? noPurchase }))
            })
            : Effect.succeed(rows.map((row): ExportRecord => ({ row, payment: undefined })))
        )
      )
      return {
        filename: attachmentName(["guests", event.slug ?? event.public_id], date),
        document: yield* streams.snapshot(caller.organizationId, csvDocument(exportColumns(eventColumnsOf(event), withPayments), batches))
      }
    })

    /** The active contacts of these rows' emails (by email key), and their guest links on the event (by person id). */
    const matchRows = (organizationId: OrganizationRowId, eventId: EventRowId, inputs: ReadonlyArray<GuestInput>) =>
      Effect.gen(function*() {
        const keys = [...new Set(inputs.map((input) => input.emailKey))]
        const matches = new Map<string, MatchRow>()
        yield* inSlices(keys, MATCH_BATCH, (slice) =>
          Effect.map(personWrites.activeByEmailKeys(organizationId, slice), (rows) => {
            for (const row of rows) matches.set(row.email_key, row)
          }))
        const links = new Map<PersonRowId, ImportLinkRow>()
        yield* inSlices([...matches.values()].map((m) => m.id), MATCH_BATCH, (slice) =>
          Effect.map(repo.linksOfPersons(eventId, slice), (rows) => {
            for (const row of rows) links.set(row.person_id, row)
          }))
        return { matches, links }
      }).pipe(Effect.orDie)

    /** A guest as notifications describe it, after the write: rendered as the API renders it. */
    const snapshotsOf = (caller: Caller, event: EventRow, guestIds: ReadonlyArray<GuestRowId>) =>
      Effect.map(repo.byIds(guestIds), (rows) => {
        const guests = renderGuests(rows, { event, role: caller.role, rsvpLink: origin.rsvpLink, payments: undefined })
        return new Map(rows.map((row, i): [GuestRowId, GuestSnapshot] => [row.gid, snapshotOf(row, guests[i]!)]))
      })

    /**
     * The import's notifications (see the top of this file), inside its transaction. Guests are
     * loaded only for the webhook types someone is registered for.
     */
    const notify = (caller: Caller, event: EventRow, plan: GuestPlan, at: string) =>
      Effect.gen(function*() {
        const affected = plan.guests.filter((g) => g.changed)
        if (affected.length === 0) return
        const variant = config.webhooks.payloadVariant
        const listeners = yield* outbox.subscribed(caller.organizationId, "GuestList")
        const watchers = yield* outbox.subscribed(caller.organizationId, "EventPerson")
        const counts = {
          added: affected.filter((g) => g.mode !== "listed").length,
          removed: 0,
          updated: affected.filter((g) => g.mode === "listed").length
        }
        if (listeners && variant === "envelopes") {
          yield* outbox.enqueue(caller.organizationId, "GuestList", [guestListBody(variant, event, [], counts, at)])
        }
        const records = listeners && variant === "records"
        if (!records && !watchers) return
        // the ids of the guests the import put on the list; the others' are known
        const fresh = new Map<string, GuestRowId>()
        yield* inSlices(affected.filter((g) => g.link === undefined).map((g) => g.emailKey), MATCH_BATCH, (slice) =>
          Effect.map(repo.guestIdsByEmailKeys(event.id, caller.organizationId, slice), (rows) => {
            for (const row of rows) fresh.set(row.email_key, row.id)
          }))
        const guestIdOf = (guest: PlannedGuest) => guest.link?.id ?? fresh.get(guest.emailKey)!
        // a batch of guests at a time for both types; the GuestList body (a JSON array) is serialized
        // batch by batch and stored as it comes (Webhooks/Outbox.ts), never held whole
        const slices: Array<ReadonlyArray<PlannedGuest>> = []
        for (let start = 0; start < affected.length; start += NOTIFY_BATCH) slices.push(affected.slice(start, start + NOTIFY_BATCH))
        const batches = Stream.mapEffect(Stream.fromIterable(slices), (slice) =>
          Effect.gen(function*() {
            const snapshots = yield* snapshotsOf(caller, event, slice.map(guestIdOf))
            if (watchers) {
              const bodies = slice.flatMap((g) => {
                const snapshot = snapshots.get(guestIdOf(g))
                const moved = g.values.rsvp_status !== g.start.rsvp_status || g.values.attendance_status !== g.start.attendance_status
                return snapshot === undefined || !moved
                  ? []
                  : [eventPersonBody(variant, event, snapshot, g.start.rsvp_status, at)]
              })
              yield* outbox.enqueue(caller.organizationId, "EventPerson", bodies)
            }
            yield* yieldToEventLoop
            return records
              ? guestListBody(variant, event, slice.map((g) => snapshots.get(guestIdOf(g)) ?? null), counts, at) as ReadonlyArray<unknown>
              : []
          }))
        if (records) yield* outbox.enqueueSerialized(caller.organizationId, "GuestList", jsonArray(batches))
        else yield* Stream.runDrain(batches)
      })

    /**
     * A plan's statements, their rows serialized ahead (each batch a JSON array for `json_each`),
     * so that the transaction only runs set-based statements of `WRITE_BATCH` rows.
     */
    const prepare = (plan: GuestPlan, eventId: string) =>
      Effect.gen(function*() {
        const writes = writesOf(plan)
        const createdIds = new Map<string, string>()
        const creates = yield* inSlices(plan.creates, WRITE_BATCH, (slice) =>
          Effect.map(Effect.forEach(slice, () => ids.uuid), (publicIds) => {
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

    /**
     * Runs a statement per batch, a turn of the event loop after each; a batch is dropped once it
     * has run. With `counted`, fails with `ImportRaced` when the statements found fewer rows than given.
     */
    const runBatches = <B extends { readonly size: number }>(
      batches: Array<B>,
      run: (batch: B) => Effect.Effect<number | void, SqlError>,
      counted: boolean
    ) =>
      Effect.gen(function*() {
        let expected = 0
        let found = 0
        for (let batch = batches.shift(); batch !== undefined; batch = batches.shift()) {
          expected += batch.size
          found += (yield* run(batch)) ?? 0
          yield* yieldToEventLoop
        }
        if (counted && found !== expected) return yield* new ImportRaced()
      })

    /**
     * Writes a plan in one transaction of set-based statements whose rows were all made before
     * it, then the notifications. Fails with `ImportRaced` when the database no longer agrees with
     * the plan: an email taken by a contact created meanwhile, a matched contact archived
     * meanwhile, a guest put on the list, removed or changed meanwhile.
     */
    const writePlan = (caller: Caller, event: EventRow, plan: GuestPlan) =>
      Effect.gen(function*() {
        const at = yield* nowIso
        const organizationId = caller.organizationId
        const statements = yield* prepare(plan, event.public_id)
        yield* Effect.gen(function*() {
          yield* runBatches(statements.creates, (batch) => personWrites.insertMany(organizationId, batch, at), false)
          yield* runBatches(statements.fills, (batch) => personWrites.fillBlanksMany(batch, at), true)
          yield* runBatches(statements.phones, (batch) => personWrites.addFirstPhones(organizationId, batch, at), false)
          yield* runBatches(statements.links, (batch) => repo.insertLinksMany(event.id, organizationId, batch, at), true)
          yield* runBatches(statements.updates, (batch) => repo.updateLinksMany(batch, at), true)
          yield* runBatches(statements.checks, (batch) => repo.unchangedLinks(batch), true)
          yield* runBatches(statements.history, (batch) => repo.addHistoryMany(event.id, organizationId, caller.actor, batch, at), true)
          yield* notify(caller, event, plan, at)
          yield* changeFeed.record(organizationId, statements.recorded)
        }).pipe(sql.withTransaction, onUniqueViolation(() => new ImportRaced()))
      })

    /**
     * Reads, validates, matches and plans a file, in slices that leave the event loop free. The
     * rows are dropped once planned: the plan keeps what it needs of them.
     */
    const planFile = (caller: Caller, event: EventRow, body: string, spec: HeaderSpec<GuestKey, string>) =>
      Effect.gen(function*() {
        const inputs: Array<GuestInput> = []
        const table = yield* readCsv(body, spec, (row, header, errors) => {
          const input = validateRow(header, row, errors)
          if (input !== undefined) inputs.push(input)
        })
        const { links, matches } = yield* matchRows(caller.organizationId, event.id, inputs)
        const planner = guestPlanner(matches, links, {
          firstName: table.headerOf("firstName"),
          lastName: table.headerOf("lastName"),
          rsvpStatus: table.headerOf("rsvpStatus"),
          email: table.headerOf("email")
        })
        yield* forEachSlice(inputs, PLAN_SLICE, (input) => planner.add(input))
        return { table, plan: planner.plan() }
      })

    /**
     * A guest-list import: the file is read, every row validated, the rows matched to active
     * contacts by email and to the event's guests, and the writes planned, all before the
     * transaction and in slices that leave the event loop free; then, unless it is a dry run or a
     * row has an error, the plan is written in one short transaction of set-based statements.
     */
    const importCsv = Effect.fn("GuestsCsv.importCsv")(function*(
      caller: Caller,
      eventId: string,
      body: string,
      params: { readonly dryRun?: boolean | undefined }
    ) {
      const dryRun = params.dryRun ?? false
      const event = yield* events.find(caller, eventId).pipe(
        // a file refused whole is a malformed request, which is said before an unknown event is
        Effect.catchTag("NotFound", (notFound) =>
          Effect.zipRight(readCsv(body, importSpec({ questions: [], customColumns: [] }), () => undefined), Effect.fail(notFound)))
      )
      const spec = importSpec(eventColumnsOf(event))
      /**
       * One attempt: planned before the transaction, or, with `locked`, all of it in one
       * transaction holding the write lock, which no concurrent write can make stale.
       */
      const attempt = (locked: boolean) => {
        const planAndWrite = Effect.gen(function*() {
          const { plan, table } = yield* planFile(caller, event, body, spec)
          const errors = table.errors.with(plan.errors)
          const report: GuestImportReport = {
            dryRun,
            rows: table.rows,
            created: plan.created,
            updated: plan.updated,
            unchanged: plan.unchanged,
            added: plan.added,
            ...errors.report(),
            unknownColumns: table.unknownColumns
          }
          if (!dryRun && errors.size === 0 && plan.guests.some((g) => g.changed)) yield* writePlan(caller, event, plan)
          return report
        })
        return locked ? planAndWrite.pipe(sql.withTransaction, onUniqueViolation(() => new ImportRaced())) : planAndWrite
      }
      // the plan went stale (a concurrent write to the same contacts or guests): planned again, then,
      // under sustained contention, planned and written under the write lock (the file read again each time)
      return yield* attempt(false).pipe(
        Effect.retry({ times: OPTIMISTIC_ATTEMPTS - 1, while: (error) => error._tag === "ImportRaced" }),
        Effect.catchTag("ImportRaced", () => attempt(true)),
        Effect.catchTag("ImportRaced", () =>
          new Conflict({ message: "Guests or contacts with these emails changed while the import ran: send it again" }))
      )
    })

    return { exportCsv, importCsv } as const
  }),
  dependencies: [
    GuestsRepo.Default,
    PersonWrites.Default,
    PaymentReads.Default,
    Events.Default,
    PublicOrigin.Default,
    Outbox.Default,
    Ids.Default,
    Changes.Default,
    StreamSlots.Default
  ]
}) {}
