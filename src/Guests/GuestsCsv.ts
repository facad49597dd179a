/**
 * A guest list as CSV: the export, streamed from one snapshot like the JSON guest list, and the
 * import, which reads, validates, matches and plans before one short transaction of set-based
 * statements. The columns are in GuestsCsvColumns.ts (the export's cells GuestsCsvExport.ts, the
 * row validation GuestsCsvRows.ts), the rules of what a row does in GuestImportPlan.ts, the CSV
 * machinery in src/Csv/. `GuestLists` offers both as its own.
 *
 * Responsiveness, as for the contacts import: parsing and validation run in slices of about a
 * thousand rows with a turn of the event loop between them (Csv/CsvImport.ts), matching in
 * statements of `MATCH_BATCH` emails, and the transaction runs statements of `WRITE_BATCH` rows
 * whose parameters were all made before it, with a turn of the event loop between statements.
 *
 * The plan is written by GuestImportWrites.ts (its statements made ahead by
 * GuestImportStatements.ts), which also makes the import's notifications, in its transaction, as
 * one guest-list write makes them (GuestImportNotifications.ts).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { forEachSlice, inSlices } from "../Csv/Chunks.js"
import { attachmentName, csvDocument } from "../Csv/CsvExport.js"
import type { HeaderSpec } from "../Csv/CsvHeader.js"
import { readCsv } from "../Csv/CsvImport.js"
import type { RowError } from "../Csv/ImportReport.js"
import type { Caller } from "../Domain/Caller.js"
import type { EventRowId, OrganizationRowId, PersonRowId } from "../Domain/RowIds.js"
import { nowIso } from "../Domain/Time.js"
import { Events } from "../Events/Events.js"
import type { EventRow } from "../Events/EventRow.js"
import { StreamSlots } from "../Http/StreamSlots.js"
import { Conflict } from "../Domain/Errors.js"
import { guestPayments, noPurchase } from "../Payments/GuestPayments.js"
import { PaymentReads } from "../Payments/PaymentReads.js"
import type { MatchRow } from "../Persons/PersonBatches.js"
import { PersonWrites } from "../Persons/PersonWrites.js"
import { onUniqueViolation } from "../Db/SqlErrors.js"
import { guestPlanner } from "./GuestImportPlan.js"
import { MATCH_BATCH } from "./GuestImportStatements.js"
import { GuestImportWrites, ImportRaced } from "./GuestImportWrites.js"
import { eventColumnsOf, type GuestKey, importSpec } from "./GuestsCsvColumns.js"
import { type ExportRecord, exportColumns } from "./GuestsCsvExport.js"
import { type GuestInput, validateRow } from "./GuestsCsvRows.js"
import { GuestsRepo, type ImportLinkRow } from "./GuestsRepo.js"
import { seesPayments } from "./Domain.js"

/** Guests per batch of an export, as for the JSON list. */
const EXPORT_BATCH = 1_000
/** Rows planned between two turns of the event loop. */
const PLAN_SLICE = 2_000
/** Attempts of an import planned before its transaction, before one planned inside it. */
const OPTIMISTIC_ATTEMPTS = 2

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

export class GuestsCsv extends Effect.Service<GuestsCsv>()("Convene/GuestsCsv", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const streams = yield* StreamSlots
    const repo = yield* GuestsRepo
    const personWrites = yield* PersonWrites
    const payments = yield* PaymentReads
    const events = yield* Events
    const writes = yield* GuestImportWrites

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
          if (!dryRun && errors.size === 0 && plan.guests.some((g) => g.changed)) yield* writes.writePlan(caller, event, plan)
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
    GuestImportWrites.Default,
    StreamSlots.Default
  ]
}) {}
