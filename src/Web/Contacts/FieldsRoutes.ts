/**
 * Contacts › Custom fields (docs/integrators.md#persons): the organization's definitions (every role
 * reads them, as `GET /custom-field`), and defining a new one (Admin and above, as
 * `POST /custom-field`), its body decoded with the API's `CreateCustomField`.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { fromParseError, type InvalidRequest } from "../../Domain/Errors.js"
import { CustomFields } from "../../Persons/CustomFields.js"
import { CreateCustomField } from "../../Persons/Domain.js"
import { fieldsOf } from "../Kit/Form.js"
import type { Viewer } from "../Kit/Viewer.js"
import { Web } from "../Kit/Web.js"
import { blankField, CustomFieldsPage, FIELD_TYPE_LABELS, type NewFieldValues } from "./FieldsPage.js"

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

/** What the new-field form posts, as typed. */
const readField = fieldsOf(Schema.Struct({ fieldName: Schema.String, fieldType: Schema.String, options: Schema.String }))
const decodeField = Schema.decodeUnknown(CreateCustomField, { errors: "all" })

/** A refusal of the API's schema as messages at the form's fields (an option's by its line), one a field. */
const errorsOf = (error: InvalidRequest, options: ReturnType<typeof optionsOf>) => {
  const seen = new Set<string>()
  return (error.issues ?? [{ path: "fieldName", message: error.message }]).flatMap((issue) => {
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
}

export const FieldsRoutesLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const web = yield* Web
    const customFields = yield* CustomFields
    const { site } = web

    const fieldsPage = (
      viewer: Viewer,
      values: NewFieldValues,
      errors: ReadonlyArray<{ readonly field: string; readonly message: string }>,
      status: number
    ) =>
      Effect.map(customFields.list(viewer.organization.id), (definitions) =>
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
          const values = readField(form)
          const options = optionsOf(values.options)
          const body = { fieldName: values.fieldName, fieldType: values.fieldType, ...(options.length === 0 ? {} : { options }) }
          const created = decodeField(body).pipe(
            Effect.mapError(fromParseError),
            Effect.flatMap((input) => customFields.create(viewer.organization.id, input))
          )
          return yield* web.perform(viewer, created, {
            to: "/app/contacts/fields",
            done: (field) => `Custom field “${field.fieldName}” (${FIELD_TYPE_LABELS[field.fieldType].toLowerCase()}) created.`,
            failed: (error) =>
              error._tag === "Conflict"
                ? fieldsPage(viewer, values, [{ field: "fieldName", message: `Name: a custom field named “${values.fieldName}” exists already` }], 409)
                : fieldsPage(viewer, values, errorsOf(error, options), 400)
          })
        }))
    )
  })
)
