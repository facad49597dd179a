/**
 * The invitation's form between the browser and `POST /event/:id/invitations`: what the form posts
 * (the compose form, the guest list's ticked guests, the preview's hidden fields), the API's body
 * made of it (checked with the API's own `SendInvitations`), and refusals said beside its fields.
 */
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import type { InvalidRequest } from "../../Domain/Errors.js"
import { SendInvitations } from "../../Invitations/Domain.js"
import { type EventSummary, eventPath } from "../Events/Summary.js"
import { asTyped, type Form, fieldsOf, Multiline, Selection } from "../Kit/Form.js"

export const INVITATIONS_PER_PAGE = 50

export const invitationsPath = (event: EventSummary, rest = "") => eventPath(event, `/invitations${rest}`)

/** What the member chose on the form, kept as typed through preview and errors. */
export interface ComposeForm {
  readonly audience: "selected" | "statuses"
  /** The selected guests (audience `selected`). */
  readonly personIds: ReadonlyArray<string>
  /** The chosen RSVP statuses (audience `statuses`). */
  readonly statuses: ReadonlyArray<string>
  readonly subject: string
  readonly message: string
}

export type ComposeErrors = Partial<Record<"audience" | "subject" | "message", string>>

export interface Recipient {
  readonly personId: string
  readonly name: string
  readonly email: string
}

/** The form as posted; `audience` as sent (empty from the guest list). */
const ComposeFields = Schema.Struct({
  audience: Schema.String,
  personIds: Schema.propertySignature(Selection).pipe(Schema.fromKey("personId")),
  statuses: Schema.propertySignature(Selection).pipe(Schema.fromKey("status")),
  subject: Schema.String,
  message: asTyped(Multiline)
})
const readCompose = fieldsOf(ComposeFields)

/** The form as posted (the guest list's selection, the compose form, or the preview's hidden fields). */
export const composeFormOf = (form: Form): ComposeForm => {
  const { audience, message, personIds, statuses, subject } = readCompose(form)
  return { audience: audience === "statuses" || (audience === "" && personIds.length === 0) ? "statuses" : "selected", personIds, statuses, subject, message }
}

/** The API's body for a form: what the schema checks, and what the service takes. */
const bodyOf = (form: ComposeForm) => ({
  ...(form.audience === "selected" ? { personIds: form.personIds } : { statuses: form.statuses }),
  ...(form.subject === "" ? {} : { subject: form.subject }),
  ...(form.message === "" ? {} : { message: form.message })
})

const decodeSend = Schema.decodeUnknownEither(SendInvitations, { errors: "all" })

/** The form's body as `POST /event/:id/invitations` takes it, checked by its schema. */
export const sendInputOf = (form: ComposeForm) => decodeSend(bodyOf(form))

type Issues = ReadonlyArray<{ readonly path: string; readonly message: string }>

/** Schema and service refusals as errors beside the form's fields. */
export const errorsOf = (issues: Issues, form: ComposeForm): ComposeErrors => {
  const errors: { -readonly [K in keyof ComposeErrors]: string } = {}
  for (const issue of issues) {
    const field = issue.path.split(".")[0]
    if (field === "subject") errors.subject ??= `The subject ${issue.message}.`
    else if (field === "message") errors.message ??= `The message ${issue.message}.`
    else {
      errors.audience ??= form.audience === "selected"
        ? form.personIds.length === 0
          ? "Tick at least one guest, or choose guests by RSVP status."
          : "Some of the selected guests are no longer on the guest list. Go back to the guest list and select them again."
        : form.statuses.length === 0
        ? "Choose at least one RSVP status."
        : issue.message.startsWith("match more")
        ? `These statuses ${issue.message}.`
        : "Choose RSVP statuses from the list."
    }
  }
  return errors
}

export const issuesOfParse = (error: ParseResult.ParseError): Issues =>
  ParseResult.ArrayFormatter.formatErrorSync(error).map((i) => ({ path: i.path.map(String).join("."), message: i.message }))

export const issuesOfInvalid = (error: InvalidRequest): Issues => error.issues ?? [{ path: "", message: error.message }]
