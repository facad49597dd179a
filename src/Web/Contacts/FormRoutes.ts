/**
 * Creating and editing a contact (Team Member and above, as `POST /person` and `PUT /person/:id`):
 * every field, custom fields included, through the same `Persons` service as the API, so validation,
 * stored values and refusals are the API's. A refused form comes back with what was typed and each
 * message at its field; an email another active contact has links to that contact.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import type { Conflict, InvalidRequest } from "../../Domain/Errors.js"
import { CustomFields } from "../../Persons/CustomFields.js"
import type { CustomFieldDefinition, PersonDetail, SmsConsentValue } from "../../Persons/Domain.js"
import { Persons } from "../../Persons/Persons.js"
import { refusedBy } from "../Kit/Action.js"
import { pathParams } from "../Kit/Form.js"
import type { Viewer } from "../Kit/Viewer.js"
import { Web } from "../Kit/Web.js"
import { contactPath, emailHolder, nameOf } from "./Contact.js"
import { type CustomPaths, fieldErrors, toCreate, toUpdate } from "./FormInput.js"
import { type ContactFormMode, ContactFormPage } from "./FormPage.js"
import { blankValues, type ContactFormValues, encodeOriginal, originalValues, readValues, valuesOf } from "./FormValues.js"

export const FormRoutesLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const web = yield* Web
    const persons = yield* Persons
    const customFields = yield* CustomFields
    const holderOf = yield* emailHolder
    const { site } = web

    const definitionsOf = (viewer: Viewer) => customFields.list(viewer.organization.id)

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
          const created = Effect.flatMap(toCreate(values), (input) => persons.create(viewer.caller, input))
          return yield* web.perform(viewer, created, {
            to: ({ personId }) => contactPath(personId),
            done: () => `Contact ${values.firstName} ${values.lastName} created.${definitions.length > 0 ? " Edit it to fill in custom fields." : ""}`,
            failed: refused(viewer, { kind: "create" }, values, definitions)
          })
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
          const { id } = yield* pathParams("id")
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
          const { id } = yield* pathParams("id")
          const person = yield* persons.get(viewer.caller, id)
          const definitions = yield* definitionsOf(viewer)
          const values = readValues(form, definitions)
          const original = originalValues(form, yield* currentValues(viewer, person, definitions))
          const update = toUpdate(person.personId, values, original, definitions)
          const back = contactPath(person.personId)
          if (update.changes.length === 0) return yield* web.flashTo(viewer, "success", `Nothing to save: ${nameOf(person)} is unchanged.`, back)
          return yield* web.perform(viewer, Effect.flatMap(update.input, (input) => persons.update(viewer.caller, person.personId, input)), {
            to: back,
            done: () => `Saved ${values.firstName} ${values.lastName}: ${update.changes.join(", ")}.`,
            failed: refusedBy(refused(viewer, editMode(person, original), values, definitions, update.paths))
          })
        }))
    )
  })
)
