/**
 * Contacts in the dashboard (docs/integrators.md#persons, docs/integrators.md#csv-export-and-import): the list (search, pages, active or archived),
 * a contact's page (every field, custom fields, the events they are on), creating and editing
 * every field of `POST /person` and `PUT /person/:id`, archiving and unarchiving, the custom-field
 * definitions, and CSV export and import. Roles are the API's: every role reads contacts and
 * custom-field definitions, Team Members and above write contacts and import, Admins and above
 * define custom fields; payment fields show from Team Member up. Pages call the same `Persons`,
 * `CustomFields` and `GuestLists` services as the API, so validation, stored values and
 * refusals are the API's.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { ApiTokens } from "../Auth/ApiTokens.js"
import { csvResponse } from "../Csv/CsvExport.js"
import type { Caller } from "../Domain/Caller.js"
import { GuestLists } from "../Guests/GuestLists.js"
import { seesPayments } from "../Guests/Domain.js"
import { historyOf } from "../Guests/GuestView.js"
import { type Conflict, fromParseError, type InvalidRequest } from "../Domain/Errors.js"
import { Members } from "../Organizations/Members.js"
import { type ImportReport } from "../Persons/ContactsCsv.js"
import { CustomFields, type FieldDef } from "../Persons/CustomFields.js"
import { CreateCustomField, type CustomFieldDefinition, type PersonDetail, type SmsConsentValue } from "../Persons/Domain.js"
import { Persons } from "../Persons/Persons.js"
import { importSpec, type PersonColumn, personColumns } from "../Persons/PersonsCsv.js"
import {
  blankValues,
  type ContactFormValues,
  type CustomPaths,
  encodeOriginal,
  FIELD_LABELS,
  fieldErrors,
  originalValues,
  readValues,
  toCreate,
  toUpdate,
  valuesOf
} from "./ContactForm.js"
import { count, dateTimeIn, plural } from "./Kit/Format.js"
import { ImportDrafts } from "./ImportDrafts.js"
import { importRoutes } from "./ImportFlow.js"
import type { ImportKind, ImportResult } from "./ImportKind.js"
import { type ContactEventView, ContactPage, ContactsListPage } from "./Pages/Contacts.js"
import { blankField, CustomFieldsPage, FIELD_TYPE_LABELS, type NewFieldValues } from "./Pages/ContactsFields.js"
import { type ContactFormMode, ContactFormPage } from "./Pages/ContactsForm.js"
import { ConfirmPage } from "./Kit/Confirm.js"
import { type Viewer, Web } from "./Web.js"

/** Contacts on one page of the list. */
const PAGE_SIZE = 25

const first = (value: string | ReadonlyArray<string> | undefined) => (typeof value === "string" ? value : value?.[0] ?? "")
const isTrue = (value: string) => ["1", "true", "on", "yes"].includes(value.toLowerCase())

const contactPath = (personId: string) => `/app/contacts/${encodeURIComponent(personId)}`
const nameOf = (p: { readonly firstName: string; readonly lastName: string }) => `${p.firstName} ${p.lastName}`.trim()

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

/** Colours given to options typed without one, in turn. */
const OPTION_COLORS = ["#2563eb", "#16a34a", "#d97706", "#dc2626", "#7c3aed", "#0891b2", "#db2777", "#4b5563"]

/** The options of the new-field form, one per line: `Value` or `Value #rrggbb`. */
const optionsOf = (text: string) =>
  text.replace(/\r\n?/g, "\n").split("\n").map((line) => line.trim()).filter((line) => line !== "").map((line, i) => {
    const match = /^(.*?)\s*(#[0-9a-fA-F]{6}|#[0-9a-fA-F]{3})$/.exec(line)
    return match !== null && match[1]!.trim() !== ""
      ? { value: match[1]!.trim(), color: match[2]!.toLowerCase() }
      : { value: line, color: OPTION_COLORS[i % OPTION_COLORS.length]! }
  })

const FIELD_FORM_LABELS: Readonly<Record<string, string>> = { fieldName: "Name", fieldType: "Type", options: "Options" }

export const ContactsRoutesLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const web = yield* Web
    const persons = yield* Persons
    const customFields = yield* CustomFields
    const guestLists = yield* GuestLists
    const members = yield* Members
    const tokens = yield* ApiTokens
    const { site } = web

    const params = Effect.map(HttpRouter.params, (p) => ({ id: p["id"] ?? "" }))
    const definitionsOf = (viewer: Viewer) => customFields.list(viewer.organization.id)

    /** Who made an RSVP history entry, in words (names of members and API keys for Admins). */
    const actorLabels = (viewer: Viewer) =>
      Effect.gen(function*() {
        const names = new Map<string, string>()
        if (viewer.can("Admin")) {
          for (const m of yield* members.active(viewer.organization.id)) {
            const name = [m.firstName, m.lastName].filter((s) => s !== null && s !== "").join(" ")
            names.set(`user:${m.userId}`, name === "" ? m.email : name)
          }
          for (const t of yield* tokens.apiTokens(viewer.organization.id)) names.set(`apiKey:${t.tokenId}`, t.name)
        }
        return (actorType: string, actorId: string): string => {
          if (actorType === "user") {
            if (actorId === viewer.caller.actor.id) return "you"
            const name = names.get(`user:${actorId}`)
            return name === undefined ? "a team member" : name
          }
          if (actorType === "apiKey") {
            const name = names.get(`apiKey:${actorId}`)
            return name === undefined ? "an API key" : `API key “${name}”`
          }
          if (actorType === "eventPerson") return "the guest"
          return actorType
        }
      })

    /** The active contact holding an email, to link to when the email refused a form. */
    const holderOf = (caller: Caller, email: string) =>
      email.includes("@")
        ? Effect.map(persons.browse(caller, { term: email, archived: false, limit: 1, skip: 0 }), (page) => {
          const found = page.persons[0]
          return found === undefined ? undefined : { personId: found.personId, name: nameOf(found) }
        })
        : Effect.succeed(undefined)

    // ---- the list and the export ---------------------------------------------------------------

    yield* router.get(
      "/app/contacts",
      web.page("Viewer", (viewer) =>
        Effect.gen(function*() {
          const query = yield* HttpServerRequest.ParsedSearchParams
          const term = first(query["q"]).trim().slice(0, 320)
          const archived = isTrue(first(query["archived"]))
          const skipText = first(query["skip"])
          const skip = /^\d{1,9}$/.test(skipText) ? Number(skipText) : 0
          const page = yield* persons.browse(viewer.caller, { term, archived, limit: PAGE_SIZE, skip })
          if (page.persons.length === 0 && skip > 0 && page.total > 0) {
            const back = new URLSearchParams()
            if (term !== "") back.set("q", term)
            if (archived) back.set("archived", "1")
            return web.redirect(`/app/contacts${back.size === 0 ? "" : `?${back}`}`)
          }
          return web.render(ContactsListPage({
            site,
            member: viewer.member,
            flash: viewer.flash,
            canWrite: viewer.can("Team Member"),
            query: term,
            searchedBy: page.by,
            archived,
            persons: page.persons,
            total: page.total,
            skip,
            limit: PAGE_SIZE
          }))
        }))
    )

    // `GET /person/export` for the member: the same file, streamed, with the same headers
    yield* router.get(
      "/app/contacts/export",
      web.page("Viewer", (viewer) =>
        Effect.gen(function*() {
          const query = yield* HttpServerRequest.ParsedSearchParams
          const { document, filename } = yield* persons.exportCsv(viewer.caller, { archived: isTrue(first(query["archived"])) })
          return yield* csvResponse(filename, document)
        }))
    )

    // ---- a new contact ---------------------------------------------------------------------------

    const formPage = (
      viewer: Viewer,
      mode: ContactFormMode,
      values: ContactFormValues,
      definitions: ReadonlyArray<CustomFieldDefinition>,
      errors: ReturnType<typeof fieldErrors> = [],
      status = 200,
      emailTakenBy?: { readonly personId: string; readonly name: string }
    ) =>
      web.render(
        ContactFormPage({
          site,
          member: viewer.member,
          flash: status === 200 ? viewer.flash : null,
          mode,
          values,
          errors,
          definitions,
          emailTakenBy
        }),
        status
      )

    /** A refused form again, with what was typed and each message at its field. */
    const refused = (
      viewer: Viewer,
      mode: ContactFormMode,
      values: ContactFormValues,
      definitions: ReadonlyArray<CustomFieldDefinition>,
      paths?: CustomPaths
    ) =>
    (error: InvalidRequest | Conflict) =>
      error._tag === "Conflict"
        ? Effect.map(holderOf(viewer.caller, values.email), (holder) =>
          formPage(viewer, mode, values, definitions, fieldErrors(error, definitions, paths), 409, holder))
        : Effect.succeed(formPage(viewer, mode, values, definitions, fieldErrors(error, definitions, paths), 400))

    yield* router.get(
      "/app/contacts/new",
      web.page("Team Member", (viewer) =>
        Effect.map(definitionsOf(viewer), (definitions) => formPage(viewer, { kind: "create" }, blankValues(definitions), definitions)))
    )

    yield* router.post(
      "/app/contacts/new",
      web.action("Team Member", (viewer, form) =>
        Effect.gen(function*() {
          const definitions = yield* definitionsOf(viewer)
          const values = readValues(form, definitions)
          return yield* toCreate(values).pipe(
            Effect.flatMap((input) => persons.create(viewer.caller, input)),
            Effect.tap(() =>
              web.flash(viewer, "success", `Contact ${values.firstName} ${values.lastName} created.${definitions.length > 0 ? " Edit it to fill in custom fields." : ""}`)
            ),
            Effect.map(({ personId }) => web.redirect(contactPath(personId))),
            Effect.catchTags({
              InvalidRequest: refused(viewer, { kind: "create" }, values, definitions),
              Conflict: refused(viewer, { kind: "create" }, values, definitions)
            })
          )
        }))
    )

    // ---- custom-field definitions ----------------------------------------------------------------

    const fieldsPage = (
      viewer: Viewer,
      values: NewFieldValues,
      errors: ReadonlyArray<{ readonly field: string; readonly message: string }>,
      status: number
    ) =>
      Effect.map(definitionsOf(viewer), (definitions) =>
        web.render(
          CustomFieldsPage({
            site,
            member: viewer.member,
            flash: status === 200 ? viewer.flash : null,
            definitions,
            canDefine: viewer.can("Admin"),
            values,
            errors
          }),
          status
        ))

    yield* router.get("/app/contacts/fields", web.page("Viewer", (viewer) => fieldsPage(viewer, blankField, [], 200)))

    yield* router.post(
      "/app/contacts/fields",
      web.action("Admin", (viewer, form) =>
        Effect.gen(function*() {
          const values: NewFieldValues = { fieldName: form.get("fieldName"), fieldType: form.get("fieldType"), options: form.get("options") }
          const options = optionsOf(values.options)
          const body = { fieldName: values.fieldName, fieldType: values.fieldType, ...(options.length === 0 ? {} : { options }) }
          return yield* Schema.decodeUnknown(CreateCustomField, { errors: "all" })(body).pipe(
            Effect.mapError(fromParseError),
            Effect.flatMap((input) => customFields.create(viewer.organization.id, input)),
            Effect.tap((field) =>
              web.flash(viewer, "success", `Custom field “${field.fieldName}” (${FIELD_TYPE_LABELS[field.fieldType].toLowerCase()}) created.`)
            ),
            Effect.map(() => web.redirect("/app/contacts/fields")),
            Effect.catchTags({
              Conflict: () =>
                fieldsPage(viewer, values, [{ field: "fieldName", message: `Name: a custom field named “${values.fieldName}” exists already` }], 409),
              InvalidRequest: (error) => {
                const seen = new Set<string>()
                const errors = (error.issues ?? [{ path: "fieldName", message: error.message }]).flatMap((issue) => {
                  const [head = "fieldName", index, leaf] = issue.path.split(".")
                  const option = index === undefined ? undefined : options[Number(index)]
                  const message = head === "options" && option !== undefined
                    ? `Option ${Number(index) + 1} (“${option.value}”)${leaf === "color" ? ", its colour," : ""} ${issue.message}`
                    : head === "fieldType"
                    ? "Type must be text, number or multiselect"
                    : `${FIELD_FORM_LABELS[head] ?? head}${/^(must|is|has) /.test(issue.message) ? " " : ": "}${
                      issue.message === "must not be empty" ? "must be filled in" : issue.message
                    }`
                  const key = `${head}:${index ?? ""}`
                  if (seen.has(key)) return []
                  seen.add(key)
                  return [{ field: head in FIELD_FORM_LABELS ? head : "fieldName", message }]
                })
                return fieldsPage(viewer, values, errors, 400)
              }
            })
          )
        }))
    )

    // ---- the import flow ---------------------------------------------------------------------------

    const importResult = (report: ImportReport): ImportResult => ({
      rows: report.rows,
      counts: [
        { label: "new", value: report.created },
        { label: "updated", value: report.updated },
        { label: "unchanged", value: report.unchanged }
      ],
      errors: report.errors,
      errorsOmitted: report.errorsOmitted,
      unknownColumns: report.unknownColumns
    })

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

    // ---- one contact ---------------------------------------------------------------------------------

    /** The events a contact is on, as the guest lists render them for the member (payments by role). */
    const eventsOf = (viewer: Viewer, person: PersonDetail) =>
      Effect.gen(function*() {
        const by = yield* actorLabels(viewer)
        const shown = yield* Effect.forEach(person.eventHistory, (entry) =>
          guestLists.guest(viewer.caller, entry.eventId, person.personId).pipe(
            Effect.map(({ event, guest, row }): ContactEventView => ({
              eventId: entry.eventId,
              name: event.name,
              when: dateTimeIn(event.primary_date, event.timezone),
              iso: event.primary_date,
              rsvpStatus: guest.rsvpStatus,
              attendance: guest.attendanceStatus,
              history: historyOf(row).map((h) => ({
                status: h.status,
                added: h.actionType === "added",
                by: by(h.actorType, h.actorId),
                when: dateTimeIn(h.createdAt, event.timezone),
                iso: h.createdAt
              })).reverse(),
              ...(seesPayments(viewer.role)
                ? {
                  payment: guest.paymentStatus === undefined || guest.paymentStatus === null
                    ? null
                    : { status: guest.paymentStatus, amount: guest.paymentAmount ?? null, donation: guest.donationAmount ?? null }
                }
                : {})
            })),
            // taken off the list (or the event deleted) since the person was read
            Effect.catchTag("NotFound", () => Effect.succeed(undefined))
          ))
        return shown.filter((e) => e !== undefined)
      })

    const contactPage = (viewer: Viewer, person: PersonDetail, status = 200, flash = viewer.flash) =>
      Effect.gen(function*() {
        const definitions = yield* definitionsOf(viewer)
        const smsConsent = person.phone === null ? null : yield* persons.smsConsentOf(viewer.caller, person.phone)
        const events = yield* eventsOf(viewer, person)
        return web.render(
          ContactPage({
            site,
            member: viewer.member,
            flash,
            person,
            smsConsent,
            definitions,
            events,
            canWrite: viewer.can("Team Member"),
            seesPayments: seesPayments(viewer.role),
            canDefineFields: viewer.can("Admin")
          }),
          status
        )
      })

    yield* router.get(
      "/app/contacts/:id",
      web.page("Viewer", (viewer) =>
        Effect.gen(function*() {
          const { id } = yield* params
          return yield* contactPage(viewer, yield* persons.get(viewer.caller, id))
        }))
    )

    const editMode = (person: PersonDetail, original: ContactFormValues): ContactFormMode => ({
      kind: "edit",
      personId: person.personId,
      name: nameOf(person),
      archived: person.archived,
      original: encodeOriginal(original)
    })

    /** The contact as the edit form shows it now. */
    const currentValues = (viewer: Viewer, person: PersonDetail, definitions: ReadonlyArray<CustomFieldDefinition>) =>
      Effect.map(
        person.phone === null
          ? Effect.succeed<{ readonly consent: SmsConsentValue }>({ consent: "none" })
          : persons.smsConsentOf(viewer.caller, person.phone),
        (consent) => valuesOf(person, consent.consent, definitions)
      )

    yield* router.get(
      "/app/contacts/:id/edit",
      web.page("Team Member", (viewer) =>
        Effect.gen(function*() {
          const { id } = yield* params
          const person = yield* persons.get(viewer.caller, id)
          const definitions = yield* definitionsOf(viewer)
          const values = yield* currentValues(viewer, person, definitions)
          return formPage(viewer, editMode(person, values), values, definitions)
        }))
    )

    yield* router.post(
      "/app/contacts/:id/edit",
      web.action("Team Member", (viewer, form) =>
        Effect.gen(function*() {
          const { id } = yield* params
          const person = yield* persons.get(viewer.caller, id)
          const definitions = yield* definitionsOf(viewer)
          const values = readValues(form, definitions)
          const original = originalValues(form, yield* currentValues(viewer, person, definitions))
          const mode = editMode(person, original)
          const update = toUpdate(person.personId, values, original, definitions)
          if (update.changes.length === 0) {
            yield* web.flash(viewer, "success", `Nothing to save: ${nameOf(person)} is unchanged.`)
            return web.redirect(contactPath(person.personId))
          }
          return yield* update.input.pipe(
            Effect.flatMap((input) => persons.update(viewer.caller, person.personId, input)),
            Effect.tap(() => web.flash(viewer, "success", `Saved ${values.firstName} ${values.lastName}: ${update.changes.join(", ")}.`)),
            Effect.map(() => web.redirect(contactPath(person.personId))),
            Effect.catchTags({
              InvalidRequest: refused(viewer, mode, values, definitions, update.paths),
              Conflict: refused(viewer, mode, values, definitions, update.paths)
            })
          )
        }))
    )

    // ---- archive and unarchive ----------------------------------------------------------------------

    yield* router.post(
      "/app/contacts/:id/archive",
      web.action("Team Member", (viewer, form) =>
        Effect.gen(function*() {
          const { id } = yield* params
          const person = yield* persons.get(viewer.caller, id)
          const name = nameOf(person)
          if (person.archived) {
            yield* web.flash(viewer, "error", `${name} was archived already.`)
            return web.redirect(contactPath(person.personId))
          }
          if (form.get("confirm") !== "yes") {
            return web.render(ConfirmPage({
              section: "contacts",
              site,
              member: viewer.member,
              title: `Archive ${name}?`,
              message: `${name} leaves the contact list and searches, and stays on the guest lists they are on. You can unarchive them later.`,
              action: site.href(`${contactPath(person.personId)}/archive`),
              confirmLabel: `Archive ${name}`,
              cancel: site.href(contactPath(person.personId))
            }))
          }
          yield* persons.archive(viewer.caller, person.personId)
          yield* web.flash(viewer, "success", `${name} archived. Find them with “Show archived contacts”.`)
          return web.redirect(contactPath(person.personId))
        }))
    )

    yield* router.post(
      "/app/contacts/:id/unarchive",
      web.action("Team Member", (viewer) =>
        Effect.gen(function*() {
          const { id } = yield* params
          const person = yield* persons.get(viewer.caller, id)
          const name = nameOf(person)
          if (!person.archived) {
            yield* web.flash(viewer, "error", `${name} is not archived.`)
            return web.redirect(contactPath(person.personId))
          }
          return yield* persons.unarchive(viewer.caller, person.personId).pipe(
            Effect.zipRight(web.flash(viewer, "success", `${name} is back in the contact list.`)),
            Effect.as(web.redirect(contactPath(person.personId))),
            Effect.catchTag("Conflict", () =>
              Effect.flatMap(holderOf(viewer.caller, person.email), (holder) =>
                contactPage(viewer, person, 409, {
                  kind: "error",
                  message: `${name} cannot be unarchived: ${holder === undefined ? "another active contact" : holder.name} has the email ${person.email} now, ` +
                    "and each active contact needs an email of their own. Change the email of one of them first."
                })))
          )
        }))
    )
  })
).pipe(Layer.provide(ImportDrafts.Default))
