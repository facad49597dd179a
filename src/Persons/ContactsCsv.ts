/**
 * Contacts as CSV (docs/integrators.md#csv-export-and-import): the export, streamed from one snapshot, and the import, which
 * reads, validates, matches and plans before one short transaction of set-based statements. The
 * columns are in PersonsCsv.ts (the export's cells PersonsCsvExport.ts, the row validation
 * PersonsCsvRows.ts), the matching rules in ImportPlan.ts, the CSV machinery in src/Csv/.
 * `Persons` offers both as its own methods.
 *
 * Responsiveness: parsing and validation run in slices of about a thousand rows with a turn of the
 * event loop between them (CsvImport.ts), matching in statements of `MATCH_BATCH` emails, and the
 * transaction runs statements of `WRITE_BATCH` rows whose parameters were all made before it, with
 * a turn of the event loop between statements. With one SQLite connection, other requests' reads
 * and writes wait while the transaction runs (about 0.8 s for 50,000 new contacts on two cores).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { Changes } from "../Changes/Changes.js"
import { personChange } from "../Changes/Domain.js"
import { inSlices, yieldToEventLoop } from "../Csv/Chunks.js"
import { attachmentName, csvDocument } from "../Csv/CsvExport.js"
import { readCsv } from "../Csv/CsvImport.js"
import type { RowError } from "../Csv/ImportReport.js"
import { StreamSlots } from "../Http/StreamSlots.js"
import type { Caller } from "../Domain/Caller.js"
import { Ids } from "../Domain/Ids.js"
import type { OrganizationRowId, PersonRowId } from "../Domain/RowIds.js"
import { nowIso } from "../Domain/Time.js"
import { Conflict } from "../Domain/Errors.js"
import { onUniqueViolation } from "../Db/SqlErrors.js"
import { CustomFields } from "./CustomFields.js"
import { newValuesBatch } from "./CustomFieldsRepo.js"
import { type Plan, planImport } from "./ImportPlan.js"
import { importSpec } from "./PersonsCsv.js"
import { exportColumns } from "./PersonsCsvExport.js"
import { type RowInput, validateRow } from "./PersonsCsvRows.js"
import { filledPersonsBatch, firstPhonesBatch, type MatchRow, newPersonsBatch } from "./PersonBatches.js"
import { PersonsRepo } from "./PersonsRepo.js"
import { emailKeyOf } from "../Domain/Fields.js"

/** Persons per batch of an export: a few statements per thousand, one batch's text in memory. */
const EXPORT_BATCH = 1_000
/** Emails (and persons) looked up per statement when an import matches its rows. */
const MATCH_BATCH = 5_000
/** Rows per statement of an import's transaction. */
const WRITE_BATCH = 2_000
/** Attempts of an import whose plan a concurrent write made stale. */
const IMPORT_ATTEMPTS = 3

/** Between an import's plan and its transaction, another write touched the same persons. */
class ImportRaced extends Data.TaggedError("ImportRaced") {}

export interface ImportReport {
  readonly dryRun: boolean
  readonly rows: number
  readonly created: number
  readonly updated: number
  readonly unchanged: number
  readonly errors: ReadonlyArray<RowError>
  readonly errorsOmitted?: number
  readonly unknownColumns: ReadonlyArray<string>
}

export class ContactsCsv extends Effect.Service<ContactsCsv>()("Convene/ContactsCsv", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const streams = yield* StreamSlots
    const repo = yield* PersonsRepo
    const customFields = yield* CustomFields
    const ids = yield* Ids
    const changeFeed = yield* Changes

    /**
     * The organization's active (or archived) persons as a CSV document (docs/integrators.md#csv-export-and-import), read in
     * keyset batches from one snapshot and written as they are read.
     */
    const exportCsv = Effect.fn("ContactsCsv.exportCsv")(function*(caller: Caller, params: { readonly archived?: boolean | undefined }) {
      const definitions = yield* customFields.definitions(caller.organizationId)
      const date = (yield* nowIso).slice(0, 10)
      const batches = repo.ofOrganization(caller.organizationId, params.archived ?? false, EXPORT_BATCH).pipe(
        Stream.mapEffect((persons) =>
          Effect.map(customFields.storedValuesOf(persons.map((p) => p.id)), (values) =>
            persons.map((person) => ({ person, values: values.get(person.id) })))
        )
      )
      return {
        filename: attachmentName(["contacts", caller.organizationSlug], date),
        document: yield* streams.snapshot(caller.organizationId, csvDocument(exportColumns(definitions), batches))
      }
    })

    /** The active persons of these rows' emails, by email key, and which of them hold a value, by custom field id. */
    const matchRows = (organizationId: OrganizationRowId, inputs: ReadonlyArray<RowInput>, withCustom: boolean) =>
      Effect.gen(function*() {
        const keys = [...new Set(inputs.map((input) => input.emailKey))]
        const matches = new Map<string, MatchRow>()
        yield* inSlices(keys, MATCH_BATCH, (slice) =>
          Effect.map(repo.activeByEmailKeys(organizationId, slice), (rows) => {
            for (const row of rows) matches.set(row.email_key, row)
          }))
        const holders = new Map<number, Set<PersonRowId>>()
        if (withCustom) {
          yield* inSlices([...matches.values()].map((m) => m.id), MATCH_BATCH, (slice) =>
            Effect.map(customFields.storedValuesOf(slice), (values) => {
              for (const [personId, fields] of values) {
                for (const fieldId of fields.keys()) {
                  const persons = holders.get(fieldId)
                  if (persons === undefined) holders.set(fieldId, new Set([personId]))
                  else persons.add(personId)
                }
              }
            }))
        }
        return { matches, holders }
      }).pipe(Effect.orDie)

    /**
     * Writes a plan in one transaction. Its statements' rows are serialized first (the plan's new
     * persons, their phones and custom values, known by email key), so that the transaction only
     * runs set-based statements of `WRITE_BATCH` rows, with a turn of the event loop between them.
     * Fails with `ImportRaced` when the database no longer agrees with the plan: an email taken by
     * a person created meanwhile, or a matched person archived (or given another email) meanwhile.
     * The created and filled persons are recorded in the change feed, set-based, at its end.
     */
    const writePlan = (organizationId: OrganizationRowId, plan: Plan) =>
      Effect.gen(function*() {
        const at = yield* nowIso
        const createdIds: Array<string> = []
        const creates = yield* inSlices(plan.creates, WRITE_BATCH, (slice) =>
          Effect.map(Effect.forEach(slice, () => ids.uuid), (publicIds) => {
            createdIds.push(...publicIds)
            return newPersonsBatch(slice.map((create, i) => ({ publicId: publicIds[i]!, email: create.email, values: create.values })))
          }))
        const recorded = [
          ...createdIds.map((id) => personChange("created", id)),
          ...plan.fills.map((fill) => personChange("updated", fill.match.public_id))
        ]
        const fills = yield* inSlices(plan.fills, WRITE_BATCH, (slice) =>
          Effect.sync(() => filledPersonsBatch(slice.map((fill) => ({ id: fill.id, emailKey: fill.match.email_key, values: fill.values })))))
        const targets = [
          ...plan.creates.map((create) => ({ emailKey: emailKeyOf(create.email), target: create })),
          ...plan.fills.map((fill) => ({ emailKey: fill.match.email_key, target: fill }))
        ]
        const phones = yield* inSlices(targets, WRITE_BATCH, (slice) =>
          Effect.sync(() =>
            firstPhonesBatch(slice.flatMap(({ emailKey, target }) => (target.phone === null ? [] : [{ emailKey, number: target.phone }])))
          ))
        const values = yield* inSlices(
          targets.flatMap(({ emailKey, target }) => target.custom.map((change) => ({ emailKey, change }))),
          WRITE_BATCH,
          (slice) =>
            Effect.map(Effect.forEach(slice, () => ids.uuid), (publicIds) =>
              newValuesBatch(slice.map(({ change, emailKey }, i) => ({
                publicId: publicIds[i]!,
                emailKey,
                fieldId: change.field.id,
                value: change.value!
              }))))
        )
        yield* Effect.gen(function*() {
          yield* inSlices(creates, 1, ([batch]) => repo.insertMany(organizationId, batch!, at))
          yield* yieldToEventLoop
          const found = yield* inSlices(fills, 1, ([batch]) => repo.fillBlanksMany(batch!, at))
          if (found.reduce((a, b) => a + b, 0) !== plan.fills.length) return yield* new ImportRaced()
          yield* yieldToEventLoop
          yield* inSlices(phones, 1, ([batch]) => repo.addFirstPhones(organizationId, batch!, at))
          yield* yieldToEventLoop
          yield* inSlices(values, 1, ([batch]) => customFields.fillMany(organizationId, batch!, at))
          yield* yieldToEventLoop
          yield* changeFeed.record(organizationId, recorded)
        }).pipe(sql.withTransaction, onUniqueViolation(() => new ImportRaced()))
      })

    /**
     * A contacts import (docs/integrators.md#csv-export-and-import): the file is read, every row validated, the rows matched to
     * active persons by email and the writes planned, all before the transaction and in slices
     * that leave the event loop free; then, unless it is a dry run or a row has an error, the plan
     * is written in one short transaction of set-based statements.
     */
    const importCsv = Effect.fn("ContactsCsv.importCsv")(function*(caller: Caller, body: string, params: { readonly dryRun?: boolean | undefined }) {
      const dryRun = params.dryRun ?? false
      const definitions = yield* customFields.definitions(caller.organizationId)
      const inputs: Array<RowInput> = []
      const table = yield* readCsv(body, importSpec(definitions), (row, header, errors) => {
        const input = validateRow(header, definitions, row, errors)
        if (input !== undefined) inputs.push(input)
      })
      const withCustom = table.slots.some((slot) => slot._tag === "Extra")
      const attempt = Effect.gen(function*() {
        const { holders, matches } = yield* matchRows(caller.organizationId, inputs, withCustom)
        const plan = planImport(inputs, matches, holders, { firstName: table.headerOf("firstName"), lastName: table.headerOf("lastName") })
        const errors = table.errors.with(plan.errors)
        if (!dryRun && errors.size === 0) yield* writePlan(caller.organizationId, plan)
        const report: ImportReport = {
          dryRun,
          rows: table.rows,
          created: plan.created,
          updated: plan.updated,
          unchanged: plan.unchanged,
          ...errors.report(),
          unknownColumns: table.unknownColumns
        }
        return report
      })
      return yield* attempt.pipe(
        Effect.retry({ times: IMPORT_ATTEMPTS - 1, while: (error) => error._tag === "ImportRaced" }),
        Effect.catchTag("ImportRaced", () =>
          new Conflict({ message: "Contacts with these emails changed while the import ran, several times: send it again" }))
      )
    })

    return { exportCsv, importCsv } as const
  }),
  dependencies: [PersonsRepo.Default, CustomFields.Default, Ids.Default, Changes.Default, StreamSlots.Default]
}) {}
