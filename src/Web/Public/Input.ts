/**
 * The registration form as sent, read into self-registration's input (SelfRegistration/Domain.ts
 * `RegistrationInput`, with the API's field limits) or refused field by field, in words for the
 * page. The dietary checkboxes are the RSVP page's options; "Anything else?" is a comma-separated
 * list, as there.
 */
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { rsvpQuestionsOf } from "../../Events/EventJson.js"
import type { EventRow } from "../../Events/EventRow.js"
import { RegistrationInput } from "../../SelfRegistration/Domain.js"
import type { Form } from "../Kit/Form.js"
import { DIETARY_OPTIONS } from "../Rsvp/Page.js"
import type { FormState } from "./Form.js"

const decode = Schema.decodeUnknownEither(RegistrationInput, { errors: "all", onExcessProperty: "ignore" })

const LABELS: Record<string, string> = {
  firstName: "First name",
  lastName: "Last name",
  email: "Email",
  dietaryOther: "Dietary restrictions"
}

/** The form's values as typed, to show again with its refusals. */
export const valuesOf = (event: EventRow, form: Form): Pick<FormState, "values" | "dietary"> => {
  const names = ["firstName", "lastName", "email", "dietaryOther", ...rsvpQuestionsOf(event).map((_, i) => `answer${i}`)]
  return {
    values: Object.fromEntries(names.map((name) => [name, form.get(name)])),
    dietary: form.getAll("dietary").filter((d) => (DIETARY_OPTIONS as ReadonlyArray<string>).includes(d))
  }
}

/** The registration in a sent form, or each refused field's message. */
export const readRegistration = (event: EventRow, form: Form): Either.Either<RegistrationInput, Record<string, string>> => {
  const questions = rsvpQuestionsOf(event)
  const other = form.get("dietaryOther").split(",").map((s) => s.trim()).filter((s) => s !== "")
  const checked = form.getAll("dietary").filter((d) => (DIETARY_OPTIONS as ReadonlyArray<string>).includes(d))
  const decoded = decode({
    firstName: form.get("firstName"),
    lastName: form.get("lastName"),
    email: form.get("email"),
    answers: questions.map((_, i) => form.get(`answer${i}`)),
    dietaryRestrictions: [...new Set([...checked, ...other])]
  })
  return Either.mapLeft(decoded, (error) => {
    const errors: Record<string, string> = {}
    for (const issue of ParseResult.ArrayFormatter.formatErrorSync(error)) {
      const [key, index] = issue.path
      const field = key === "answers" ? `answer${String(index)}` : key === "dietaryRestrictions" ? "dietaryOther" : String(key)
      if (errors[field] !== undefined) continue
      const label = key === "answers" ? (questions[Number(index)]?.title ?? "The answer") : (LABELS[field] ?? field)
      const message = key === "answers"
        ? "must be at most 1,000 characters"
        : key === "dietaryRestrictions"
        ? "must be at most 20, each under 100 characters"
        : issue.message === "Expected a string at least 1 character(s) long" ? "must not be empty" : issue.message
      errors[field] = `${label} ${message}.`
    }
    return errors
  })
}
