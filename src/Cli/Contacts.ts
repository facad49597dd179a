/**
 * `convene contacts import --org <slug> <file.csv>`: a contacts CSV imported from the shell, for an
 * operator moving a large address book in without a browser or a token. It runs the very import of
 * `POST /person/import` (Persons/ContactsCsv.ts): the same columns, limits, validation, all-or-
 * nothing write, and change-feed records; `--dry-run` checks the file and writes nothing. It may
 * run while the server runs (the database's busy timeout covers both). Contacts keep no history of
 * who wrote them, so the import acts as an Admin of the organization without a token of its own.
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { MAX_CSV_BYTES } from "../Csv/CsvBody.js"
import type { Caller } from "../Domain/Caller.js"
import { Organizations } from "../Organizations/Organizations.js"
import { Persons } from "../Persons/Persons.js"

/** Row errors printed at most; the rest are counted. */
const PRINTED_ERRORS = 20

const importContacts = Command.make(
  "import",
  {
    org: Options.text("org").pipe(Options.withDescription("The organization's slug")),
    dryRun: Options.boolean("dry-run").pipe(Options.withDescription("Check the file and count what it would do; write nothing")),
    file: Args.file({ name: "file.csv", exists: "yes" })
  },
  (input) =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const organization = yield* Effect.flatMap(Organizations, (o) => o.get(input.org))
      const size = Number((yield* fs.stat(input.file)).size)
      if (size > MAX_CSV_BYTES) {
        return yield* Effect.fail(new Error(`${input.file} is ${size} bytes; an import takes at most ${MAX_CSV_BYTES}: split it`))
      }
      const caller: Caller = {
        organizationId: organization.id,
        organizationSlug: organization.slug,
        role: "Admin",
        actor: { type: "apiKey", id: "cli" },
        userId: Option.none(),
        callerKey: "cli"
      }
      const text = new TextDecoder().decode(yield* fs.readFile(input.file))
      const report = yield* Effect.flatMap(Persons, (p) => p.importCsv(caller, text, { dryRun: input.dryRun }))
      const counts = `${report.rows} rows: ${report.created} created, ${report.updated} updated, ${report.unchanged} unchanged`
      for (const column of report.unknownColumns) yield* Console.log(`Column ignored (no such field): ${column}`)
      if (report.errors.length > 0) {
        for (const e of report.errors.slice(0, PRINTED_ERRORS)) {
          yield* Console.error(`row ${e.row}${e.column === null ? "" : `, ${e.column}`}: ${e.message}`)
        }
        const more = report.errors.length - PRINTED_ERRORS + (report.errorsOmitted ?? 0)
        if (more > 0) yield* Console.error(`... and ${more} more errors`)
        return yield* Effect.fail(new Error(`nothing imported: ${report.errors.length + (report.errorsOmitted ?? 0)} row errors (of ${counts})`))
      }
      yield* Console.log(report.dryRun ? `Dry run, nothing written: ${counts}` : `Imported ${counts}`)
    })
).pipe(Command.withDescription("Import contacts from a CSV file, as POST /person/import does (all rows or none)"))

export const contacts = Command.make("contacts").pipe(Command.withSubcommands([importContacts]))
