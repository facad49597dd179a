/**
 * Row ids (src/Domain/RowIds.ts) are told apart by the compiler: code that passes an event's row id
 * where a person's or an organization's is expected, a guest link's where an event's is, or a bare
 * number where any of them is, does not compile against the repositories, and the same calls with
 * the right ids do. A snippet is type-checked with the project's own compiler options, as `tsc`
 * checks the service.
 */
import { describe, expect, it } from "@effect/vitest"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import ts from "typescript"

const root = fileURLToPath(new URL("../..", import.meta.url))

/** The snippet's lines; those marked `wrong` must each be refused, the others accepted. */
const lines: ReadonlyArray<readonly [code: string, wrong?: "wrong"]> = [
  [`import type { EventRow } from "${root}src/Events/EventRow.js"`],
  [`import type { GuestRow, GuestsRepo } from "${root}src/Guests/GuestsRepo.js"`],
  [`import type { PaymentsRepo } from "${root}src/Payments/PaymentsRepo.js"`],
  [`import type { PersonRow, PersonsRepo } from "${root}src/Persons/PersonsRepo.js"`],
  [`import { PersonRowId } from "${root}src/Domain/RowIds.js"`],
  ["declare const guests: GuestsRepo, persons: PersonsRepo, payments: PaymentsRepo"],
  ["declare const event: EventRow, person: PersonRow, guest: GuestRow"],
  ["guests.link({ eventId: event.id, personId: person.id })"],
  ["guests.link({ eventId: person.id, personId: event.id })", "wrong"],
  ["guests.byIds([guest.gid])"],
  ["guests.byIds([guest.person_id])", "wrong"],
  ["guests.acceptedOthers(event.id, guest.gid)"],
  ["guests.acceptedOthers(guest.gid, event.id)", "wrong"],
  ["persons.setArchived(person.id, null, '')"],
  ["persons.setArchived(event.id, null, '')", "wrong"],
  ["persons.setArchived(1, null, '')", "wrong"],
  ["persons.setArchived(PersonRowId(1), null, '')"],
  ["payments.ofPersons(event.id, [guest.person_id])"],
  ["payments.ofPersons(event.id, [guest.gid])", "wrong"],
  ["persons.idByPublicId(event.organization_id, person.public_id)"],
  ["persons.idByPublicId(event.id, person.public_id)", "wrong"],
  ["persons.idByPublicId(7, person.public_id)", "wrong"]
]

describe("row ids", () => {
  it("an organization's, an event's, a person's and a guest link's row ids are not interchangeable, nor a bare number", () => {
    const dir = mkdtempSync(join(root, "test", ".row-ids-"))
    try {
      const file = join(dir, "snippet.ts")
      writeFileSync(file, lines.map(([code]) => code).join("\n") + "\n")
      const config = ts.readConfigFile(join(root, "tsconfig.base.json"), ts.sys.readFile)
      const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, root)
      const program = ts.createProgram([file], { ...options, noEmit: true, noUnusedLocals: false })
      // the snippet's own diagnostics (every file of the program checked took most of the time)
      const refused = ts.getPreEmitDiagnostics(program, program.getSourceFile(file))
        .filter((d) => d.file?.fileName === file && d.start !== undefined)
        .map((d) => d.file!.getLineAndCharacterOfPosition(d.start!).line)
      const expected = lines.flatMap(([, wrong], i) => (wrong === undefined ? [] : [i]))
      expect([...new Set(refused)].sort((a, b) => a - b).map((i) => lines[i]![0])).toEqual(expected.map((i) => lines[i]![0]))
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 120_000)
})
