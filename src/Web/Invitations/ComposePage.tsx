/** Writing an invitation: to the guests selected on the guest list, or to every guest with some RSVP statuses. */
import type { QuotaState } from "../../Email/EmailQuota.js"
import { type EventSummary, eventPath } from "../Events/Summary.js"
import { RSVP_STATUSES } from "../Guests/State.js"
import { Card, EmptyState, PageHeader } from "../Kit/Components.js"
import { ErrorSummary, Field, TextArea } from "../Kit/Fields.js"
import { count, plural } from "../Kit/Format.js"
import { Layout, type Member, PostForm, type Site } from "../Kit/Layout.js"
import { type ComposeErrors, type ComposeForm, invitationsPath, type Recipient } from "./Compose.js"
import { QuotaLine } from "./EmailQuota.js"

export const ComposePage = (props: {
  site: Site
  member: Member
  event: EventSummary
  form: ComposeForm
  /** The selected guests, as found on the list. */
  selected: ReadonlyArray<Recipient>
  guestsByStatus: ReadonlyMap<string, number>
  defaultSubject: string
  errors: ComposeErrors
  /** Why nothing can be sent (no page address), if so. */
  blocked?: string | undefined
  quota: QuotaState
}) => {
  const { event, form, site } = props
  const errors = Object.entries(props.errors).map(([field, message]) => ({ field, message: message! }))
  const total = [...props.guestsByStatus.values()].reduce((a, b) => a + b, 0)
  return (
    <Layout site={site} member={props.member} title={`Send invitations · ${event.name}`} section="events">
      <PageHeader
        title="Send invitations"
        lead={<>{event.name} · {event.when}</>}
        back={{ href: site.href(eventPath(event, "/guests")), label: "Guest list" }}
      />
      <ErrorSummary errors={errors} />
      <QuotaLine quota={props.quota} />
      {props.blocked !== undefined
        ? (
          <div class="flash error" role="alert">
            <p>{props.blocked}</p>
            <p><a href={site.href(eventPath(event, "/edit"))}>Edit the event</a></p>
          </div>
        )
        : null}
      {total === 0
        ? (
          <EmptyState title="No guests to invite yet">
            <p>Add guests to the list first. <a href={site.href(eventPath(event, "/guests/add"))}>Add guests</a></p>
          </EmptyState>
        )
        : (
          <PostForm action={site.href(invitationsPath(event, "/preview"))} csrf={props.member.csrf} class="compose" novalidate>
            <Card title="Who gets an invitation" id="audience">
              <fieldset class={`field audience${props.errors.audience ? " has-error" : ""}`} id="f-audience" aria-describedby={props.errors.audience ? "f-audience-error" : undefined}>
                <legend class="visually-hidden">Recipients</legend>
                {props.errors.audience ? <p class="error-text" id="f-audience-error">{props.errors.audience}</p> : null}
                {props.selected.length > 0
                  ? (
                    <div class="audience-option">
                      <div class="option-head">
                        <input type="radio" id="audience-selected" name="audience" value="selected" checked={form.audience === "selected"} />
                        <label for="audience-selected">The {plural(props.selected.length, "guest")} you selected</label>
                      </div>
                      <ul class="list recipients" aria-label="Selected guests">
                        {props.selected.map((r) => (
                          <li class="field check">
                            <input
                              type="checkbox"
                              id={`p-${r.personId}`}
                              name="personId"
                              value={r.personId}
                              checked={form.personIds.includes(r.personId)}
                            />
                            <label for={`p-${r.personId}`}>{r.name} <span class="muted">{r.email}</span></label>
                          </li>
                        ))}
                      </ul>
                    </div>
                  )
                  : null}
                <div class="audience-option">
                  <div class="option-head">
                    <input type="radio" id="audience-statuses" name="audience" value="statuses" checked={form.audience === "statuses"} />
                    <label for="audience-statuses">Every guest whose RSVP status is</label>
                  </div>
                  <div class="checks statuses" role="group" aria-label="RSVP statuses">
                    {RSVP_STATUSES.map((s) => (
                      <label for={`s-${s}`}>
                        <input type="checkbox" id={`s-${s}`} name="status" value={s} checked={form.statuses.includes(s)} />
                        {s} <span class="muted">({count(props.guestsByStatus.get(s) ?? 0)})</span>
                      </label>
                    ))}
                  </div>
                </div>
                <p class="hint">To choose guests one by one, tick them on the guest list and press “Send invitations” there.</p>
              </fieldset>
            </Card>
            <Card title="The email" id="email">
              <Field name="subject" label="Subject" value={form.subject} placeholder={props.defaultSubject} maxLength={200} error={props.errors.subject} hint={`Leave empty for “${props.defaultSubject}”.`} />
              <TextArea
                name="message"
                label="Your message (optional)"
                value={form.message}
                rows={6}
                maxLength={5000}
                error={props.errors.message}
                hint="Shown first, above the event's date, place and the guest's RSVP link. Plain text; a blank line starts a new paragraph."
              />
            </Card>
            <div class="form-actions">
              <button type="submit" disabled={props.blocked !== undefined}>Preview the email</button>
              <a class="button secondary" href={site.href(eventPath(event, "/guests"))}>Cancel</a>
            </div>
          </PostForm>
        )}
    </Layout>
  )
}
