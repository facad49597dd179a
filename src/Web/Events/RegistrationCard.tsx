/** An event's registration settings on its page: open or closed and until when, approval, reminders, reply-to. */
import type { Event } from "../../Events/Domain.js"
import { Card } from "../Kit/Components.js"
import { dateTimeIn } from "../Kit/Format.js"
import { reminderInWords } from "./ReminderChoices.js"

export const RegistrationCard = ({ canEdit, event }: { event: Event; canEdit: boolean }) => (
  <Card title="Registration" id="registration">
    {event.isPublic && event.primarySlug !== null ? null : (
      <p class="muted">
        Only a public event with a page address takes registrations.{canEdit ? " Both are set in Edit event." : ""}
      </p>
    )}
    <dl class="details">
      <dt>Registration</dt>
      <dd>{event.registrationOpen ? "Open" : "Closed"}</dd>
      {event.registrationOpen
        ? (
          <>
            <dt>Closes</dt>
            <dd>
              {event.registrationClosesAt === null
                ? "When the event starts"
                : <time datetime={event.registrationClosesAt}>{dateTimeIn(event.registrationClosesAt, event.timezone)}</time>}
            </dd>
          </>
        )
        : null}
      <dt>Approval</dt>
      <dd>{event.registrationApproval ? "Needed: registrations wait as Pending" : "Not needed"}</dd>
      <dt>Reminders</dt>
      <dd>
        {event.reminders.length === 0
          ? <span class="muted">None</span>
          : <ul class="plain-list">{event.reminders.map((r) => <li>{reminderInWords(r)}</li>)}</ul>}
      </dd>
      <dt>Reply-to</dt>
      <dd>{event.replyTo === null ? <span class="muted">None</span> : <span class="mono">{event.replyTo}</span>}</dd>
    </dl>
  </Card>
)
