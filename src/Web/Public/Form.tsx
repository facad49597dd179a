/**
 * The registration form of the public page (CONTRACT §16, "Registration"): first name, last name,
 * email, the event's questions (text answers), dietary restrictions as on the RSVP page, and a
 * honeypot field a person never fills (hidden from view and from the keyboard, labelled for screen
 * readers as one to leave empty). An ordinary same-origin POST with a CSRF token bound to a cookie.
 * Refused input comes back in the same form, with what is wrong beside each field.
 */
import { rsvpQuestionsOf } from "../../Events/EventJson.js"
import type { EventRow } from "../../Events/EventRow.js"
import { MAX_ANSWER } from "../../SelfRegistration/Domain.js"
import { Field } from "../Kit/Fields.js"
import { DIETARY_OPTIONS } from "../Rsvp/Page.js"

/** The honeypot's field name: a bot filling every field fills it. */
export const TRAP_FIELD = "website"

/** The form as it was sent (kept on a refusal), and what was wrong with each field. */
export interface FormState {
  readonly csrf: string
  readonly action: string
  readonly values: Readonly<Record<string, string>>
  readonly dietary: ReadonlyArray<string>
  readonly errors: Readonly<Record<string, string>>
}

/** A text field of the form, with its value as sent and its refusal (the Kit's field). */
const Text = (props: {
  id: string
  label: string
  state: FormState
  type?: "text" | "email"
  autocomplete?: string
  required?: boolean
  maxLength: number
  hint?: string | null | undefined
}) => (
  <Field
    id={props.id}
    name={props.id}
    label={props.label}
    type={props.type ?? "text"}
    value={props.state.values[props.id] ?? ""}
    hint={props.hint ?? undefined}
    error={props.state.errors[props.id]}
    required={props.required ?? false}
    {...(props.autocomplete === undefined ? {} : { autocomplete: props.autocomplete })}
    maxLength={props.maxLength}
  />
)

/** What a refused form says first, above the event (the page opens at its top): each field's refusal, and a link to the form. */
export const Refusals = ({ errors }: { errors: Readonly<Record<string, string>> }) =>
  Object.keys(errors).length === 0 ? null : (
    <div class="flash error" role="alert">
      Nothing was saved. Please check: {Object.values(errors).join(" ")} <a href="#register-title">Go to the form</a>
    </div>
  )

export const RegisterForm = ({ approval, event, state, waitlist }: { event: EventRow; state: FormState; waitlist: boolean; approval: boolean }) => {
  const questions = rsvpQuestionsOf(event)
  const errors = Object.values(state.errors)
  return (
    <form class="card register" method="post" action={state.action} aria-labelledby="register-title" novalidate={errors.length > 0 ? true : undefined}>
      <h2 id="register-title">Register</h2>
      <p class="hint">
        {approval
          ? "The organizer reviews each registration; you will hear from them."
          : waitlist
          ? "The event is full: registering puts you on the waitlist."
          : "Fields marked * are required."}
      </p>
      <input type="hidden" name="csrf" value={state.csrf} />
      <div class="grid-2">
        <Text id="firstName" label="First name" state={state} required maxLength={200} autocomplete="given-name" />
        <Text id="lastName" label="Last name" state={state} required maxLength={200} autocomplete="family-name" />
      </div>
      <Text id="email" label="Email" type="email" state={state} required maxLength={320} autocomplete="email" hint="Your personal link to this event is sent here." />
      {questions.map((q, i) => (
        <Text id={`answer${i}`} label={q.title} state={state} maxLength={MAX_ANSWER} hint={q.description} />
      ))}
      <fieldset>
        <legend>Dietary restrictions</legend>
        <div class="checks">
          {DIETARY_OPTIONS.map((option) => (
            <label><input type="checkbox" name="dietary" value={option} checked={state.dietary.includes(option)} /> {option}</label>
          ))}
        </div>
        <Text id="dietaryOther" label="Anything else?" state={state} maxLength={200} hint="Separate several with commas." />
      </fieldset>
      <div class="trap">
        <label for={TRAP_FIELD}>Leave this field empty (it catches automated sign-ups)</label>
        <input type="text" id={TRAP_FIELD} name={TRAP_FIELD} value="" tabindex={-1} autocomplete="off" />
      </div>
      <button type="submit" class="big">{waitlist && !approval ? "Join the waitlist" : "Register"}</button>
    </form>
  )
}
