/**
 * Contacts as a CSV file (docs/integrators.md#csv-export-and-import): their import through the
 * dashboard's import flow (Imports: upload, preview, confirm) over `POST /person/import`, with the
 * columns an import reads said in words (Team Member and above).
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import type { ImportReport } from "../../Persons/ContactsCsv.js"
import { CustomFields, type FieldDef } from "../../Persons/CustomFields.js"
import { Persons } from "../../Persons/Persons.js"
import { importSpec, type PersonColumn, personColumns } from "../../Persons/PersonsCsv.js"
import { importRoutes } from "../Imports/Flow.js"
import { type ImportKind, type ImportResult, resultOf } from "../Imports/ImportKind.js"
import { count, plural } from "../Kit/Format.js"
import type { Viewer } from "../Kit/Viewer.js"
import { FIELD_TYPE_LABELS } from "./FieldsPage.js"
import { FIELD_LABELS } from "./FormValues.js"

/** What each column of a contacts file fills, in words (the import's preview). */
const COLUMN_LABELS: Readonly<Record<PersonColumn, string>> = {
  personId: "Contact ID",
  firstName: FIELD_LABELS.firstName,
  lastName: FIELD_LABELS.lastName,
  email: FIELD_LABELS.email,
  phone: FIELD_LABELS.phone,
  company: FIELD_LABELS.company,
  position: FIELD_LABELS.position,
  birthday: FIELD_LABELS.birthday,
  address: FIELD_LABELS.address,
  apartment: FIELD_LABELS.apartment,
  city: FIELD_LABELS.city,
  state: FIELD_LABELS.state,
  country: FIELD_LABELS.country,
  postalCode: FIELD_LABELS.postalCode,
  profilePicture: "Profile picture (a web address)",
  contextNote: FIELD_LABELS.contextNote,
  archived: "Archived",
  createdAt: "Created"
}

const COLUMN_NOTES: Partial<Record<PersonColumn, string>> = {
  firstName: "First name, needed for a new contact",
  lastName: "Last name, needed for a new contact",
  email: "Email, needed on every row: it finds the contact",
  birthday: "Birthday, as YYYY-MM-DD",
  phone: "Preferred phone number",
  profilePicture: "Profile picture, a full https:// address",
  contextNote: "A note for your team"
}

const importResult = (report: ImportReport): ImportResult =>
  resultOf(report, [
    { label: "new", value: report.created },
    { label: "updated", value: report.updated },
    { label: "unchanged", value: report.unchanged }
  ])

export const ImportRoutesLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const persons = yield* Persons
    const customFields = yield* CustomFields

    const contactsImport = (viewer: Viewer) =>
      Effect.map(customFields.definitions(viewer.organization.id), (definitions): ImportKind<PersonColumn, FieldDef> => ({
        kind: "contacts",
        path: "/app/contacts/import",
        section: "contacts",
        title: "Import contacts",
        lead: "Add contacts from a spreadsheet, a mailing tool or another event service, and fill in what your contacts lack.",
        back: { href: "/app/contacts", label: "All contacts" },
        noun: { one: "contact", many: "contacts" },
        columns: [
          ...personColumns.filter((c) => c.readOnly !== true).map((c) => ({
            header: c.header,
            meaning: `${COLUMN_NOTES[c.key] ?? COLUMN_LABELS[c.key]}${c.aliases === undefined ? "" : ` (also: ${c.aliases.join(", ")})`}`
          })),
          ...definitions.all.map((field) => ({
            header: `custom:${field.name}`,
            meaning: `Custom field “${field.name}” (${FIELD_TYPE_LABELS[field.type].toLowerCase()}${field.type === "multiselect" ? `: ${field.options.map((o) => o.value).join(", ")}, separated by ;` : ""})`
          }))
        ],
        notes: [
          "A row whose email belongs to an active contact fills only that contact's empty fields: nothing they have is overwritten.",
          "Any other row creates a contact, so it needs a first and a last name.",
          "Columns Convene does not know are listed and ignored; personId, archived and createdAt (from an export) are skipped.",
          "Nothing is imported if any row has an error: the preview lists them all first."
        ],
        template: { href: "/app/contacts/export", label: "Download your contacts as a CSV file: the same columns, to start from" },
        spec: importSpec(definitions),
        fills: (slot) =>
          slot._tag === "Column"
            ? COLUMN_LABELS[slot.key]
            : `Custom field “${slot.value.name}” (${FIELD_TYPE_LABELS[slot.value.type].toLowerCase()})`,
        dryRun: (csv) => Effect.map(persons.importCsv(viewer.caller, csv, { dryRun: true }), importResult),
        run: (csv) => Effect.map(persons.importCsv(viewer.caller, csv, {}), importResult),
        done: (result, filename) => ({
          message: `Imported ${plural(result.rows, "contact")}${filename === "" ? "" : ` from ${filename}`}: ` +
            result.counts.map((c) => `${count(c.value)} ${c.label}`).join(", ") + ".",
          redirect: "/app/contacts"
        })
      }))

    yield* importRoutes(router, { route: "/app/contacts/import", role: "Team Member", kindOf: contactsImport })
  })
)
