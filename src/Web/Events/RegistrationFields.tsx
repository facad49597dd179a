/**
 * The event form's "Registration" group: whether people may sign themselves up on the event's
 * public page and until when, whether their registrations wait for approval, the reminders
 * before the start (up to three, from a list of common ones) and the reply-to address.
 */
import { MAX_REMINDERS } from "../../Events/Reminders.js"
import { Checkbox, Field, Select } from "../Kit/Fields.js"
import { Group, Row } from "./FormParts.js"
import type { EventFormValues } from "./FormValues.js"
import { reminderOptions } from "./ReminderChoices.js"

export const RegistrationFields = (props: { values: EventFormValues; errorOf: (field: string) => string | undefined }) => {
  const { errorOf, values } = props
  const remindersError = errorOf("reminders")
  return (
    <Group legend="Registration" hint="How people sign themselves up on the event's public page, and what they hear before it.">
      <Checkbox
        name="registrationOpen"
        label="Registration is open"
        checked={values.registrationOpen}
        hint="Untick to close registration: the public page then says it is closed."
      />
      <div class="grid-2">
        <Field
          name="registrationClosesAt"
          label="Registration closes"
          type="datetime-local"
          hint="In the event's time zone. Leave empty to keep it open until the event starts."
          value={values.registrationClosesAt}
          error={errorOf("registrationClosesAt")}
        />
      </div>
      <Checkbox
        name="registrationApproval"
        label="Registrations need approval"
        checked={values.registrationApproval}
        hint="New registrations wait as Pending until you approve or decline them on the guest list."
      />
      <Row legend="Reminders before the start" layout="three" id="f-reminders">
        {Array.from({ length: MAX_REMINDERS }, (_, i) => (
          <Select
            name="reminders"
            id={`f-reminders-${i}`}
            label={`Reminder ${i + 1}`}
            options={reminderOptions(values.reminders[i] ?? "")}
            value={values.reminders[i] ?? ""}
          />
        ))}
      </Row>
      {remindersError ? <p class="error-text" id="f-reminders-error">{remindersError}</p> : null}
      <div class="grid-2">
        <Field
          name="replyTo"
          label="Reply-to email"
          type="email"
          autocomplete="email"
          maxLength={320}
          hint="Where guests' replies to the event's emails should go. Optional."
          value={values.replyTo}
          error={errorOf("replyTo")}
        />
      </div>
    </Group>
  )
}
