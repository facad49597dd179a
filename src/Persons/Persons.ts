/** Persons (docs/integrators.md#persons): create, read, list, search, update, bulk update, archive. */
import * as Effect from "effect/Effect"
import { ContactsCsv } from "./ContactsCsv.js"
import { PersonEdits } from "./PersonEdits.js"
import { PersonQueries } from "./PersonQueries.js"

/** The persons' service the API, the dashboard and the CLI call: reads (PersonQueries.ts), writes (PersonEdits.ts) and CSV (ContactsCsv.ts). */
export class Persons extends Effect.Service<Persons>()("Convene/Persons", {
  effect: Effect.gen(function*() {
    const queries = yield* PersonQueries
    const edits = yield* PersonEdits
    const contactsCsv = yield* ContactsCsv
    return {
      list: queries.list,
      search: queries.search,
      browse: queries.browse,
      smsConsentOf: queries.smsConsentOf,
      create: edits.create,
      get: queries.get,
      update: edits.update,
      bulkUpdate: edits.bulkUpdate,
      archive: edits.archive,
      unarchive: edits.unarchive,
      find: queries.find,
      page: queries.page,
      exportCsv: contactsCsv.exportCsv,
      importCsv: contactsCsv.importCsv
    } as const
  }),
  dependencies: [PersonQueries.Default, PersonEdits.Default, ContactsCsv.Default]
}) {}
