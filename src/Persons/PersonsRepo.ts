/**
 * Persons, their phones and SMS consent in the database, as one service whose statements live in
 * three parts: pages, lookups and searches (PersonPagesRepo.ts), one person at a time
 * (PersonRecordRepo.ts), and the set-based statements of imports (PersonImportsRepo.ts). Every
 * query is scoped to one organization. Its rows are PersonRows.ts (re-exported here).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { DirectSql } from "../Db/DirectSql.js"
import { personImports } from "./PersonImportsRepo.js"
import { personPages } from "./PersonPagesRepo.js"
import { personRecord } from "./PersonRecordRepo.js"

export { ExportRow, type Found, type NewPersonRow, PersonRow, profileColumns } from "./PersonRows.js"

export class PersonsRepo extends Effect.Service<PersonsRepo>()("Convene/PersonsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const direct = yield* DirectSql
    return { ...personPages(sql, direct), ...personRecord(sql, direct), ...personImports(sql, direct) } as const
  })
}) {}
