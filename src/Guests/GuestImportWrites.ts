/**
 * A guest-list import's plan written (GuestsCsv.ts): one transaction of set-based statements whose
 * rows were all made before it (GuestImportStatements.ts), a turn of the event loop between
 * statements, then its notifications (GuestImportNotifications.ts) and its changes, and the places
 * it freed filled from the waitlist (WaitlistPromotion.ts). `ImportRaced`
 * when the database no longer agrees with the plan.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import { Changes } from "../Changes/Changes.js"
import { yieldToEventLoop } from "../Csv/Chunks.js"
import type { Caller } from "../Domain/Caller.js"
import { Ids } from "../Domain/Ids.js"
import { nowIso } from "../Domain/Time.js"
import type { EventRow } from "../Events/EventRow.js"
import { PersonWrites } from "../Persons/PersonWrites.js"
import { onUniqueViolation } from "../Db/SqlErrors.js"
import { GuestImportNotifications } from "./GuestImportNotifications.js"
import type { GuestPlan } from "./GuestImportPlan.js"
import { prepareStatements } from "./GuestImportStatements.js"
import { GuestsRepo } from "./GuestsRepo.js"
import { freesPlace } from "./Waitlist.js"
import { WaitlistPromotion } from "./WaitlistPromotion.js"

/** Between an import's plan and its transaction, another write touched the same contacts or guests. */
export class ImportRaced extends Data.TaggedError("ImportRaced") {}

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

export class GuestImportWrites extends Effect.Service<GuestImportWrites>()("Convene/GuestImportWrites", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* GuestsRepo
    const personWrites = yield* PersonWrites
    const notifications = yield* GuestImportNotifications
    const ids = yield* Ids
    const changeFeed = yield* Changes
    const waitlist = yield* WaitlistPromotion

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
        const statements = yield* prepareStatements(plan, event.public_id, ids.uuid)
        yield* Effect.gen(function*() {
          yield* runBatches(statements.creates, (batch) => personWrites.insertMany(organizationId, batch, at), false)
          yield* runBatches(statements.fills, (batch) => personWrites.fillBlanksMany(batch, at), true)
          yield* runBatches(statements.phones, (batch) => personWrites.addFirstPhones(organizationId, batch, at), false)
          yield* runBatches(statements.links, (batch) => repo.insertLinksMany(event.id, organizationId, batch, at), true)
          yield* runBatches(statements.updates, (batch) => repo.updateLinksMany(batch, at), true)
          yield* runBatches(statements.checks, (batch) => repo.unchangedLinks(batch), true)
          yield* runBatches(statements.history, (batch) => repo.addHistoryMany(event.id, organizationId, caller.actor, batch, at), true)
          yield* notifications.notify(caller, event, plan, at)
          yield* changeFeed.record(organizationId, statements.recorded)
          const freed = plan.guests.some((g) => g.mode === "listed" && freesPlace(g.start.rsvp_status, g.values.rsvp_status))
          yield* waitlist.afterWrite(event, freed, at)
        }).pipe(sql.withTransaction, onUniqueViolation(() => new ImportRaced()))
      })

    return { writePlan } as const
  }),
  dependencies: [
    GuestsRepo.Default,
    PersonWrites.Default,
    GuestImportNotifications.Default,
    Ids.Default,
    Changes.Default,
    WaitlistPromotion.Default
  ]
}) {}
