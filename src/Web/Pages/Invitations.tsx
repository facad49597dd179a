/**
 * Invitations by email (docs/integrators.md#email-invitations) in the dashboard: an event's invitations log, writing the
 * invitation (to chosen guests, or to every guest with some RSVP statuses), and a preview of the
 * real email for one recipient before anything is sent. Without SMTP_URL and MAIL_FROM the pages
 * say how to set email up and offer no way to send.
 */
import type { QuotaState } from "../../Email/EmailQuota.js"
import { type InvitationInput, InvitationPreview } from "../../Invitations/InvitationEmail.js"
import { type Invitation, REINVITE_WINDOW_MINUTES } from "../../Invitations/Domain.js"
import { count, plural } from "../Kit/Format.js"
import { Badge, Card, EmptyState, ErrorSummary, Field, type FlashView, Layout, type Member, PageHeader, Pager, PostForm, type Site, TextArea } from "../Html.js"
import { QuotaLine, QuotaShort } from "./EmailQuota.js"
import { type EventSummary, eventPath, RSVP_STATUSES } from "./Guests.js"

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

const STATE_BADGES: Record<Invitation["status"], { readonly tone: "info" | "good" | "bad"; readonly label: string }> = {
  queued: { tone: "info", label: "Queued" },
  sent: { tone: "good", label: "Sent" },
  failed: { tone: "bad", label: "Failed" }
}

/** A time written in UTC, shown in the reader's zone when scripts run. */
const When = ({ iso }: { iso: string }) => <time datetime={iso} data-local="">{new Date(iso).toUTCString().replace(/:\d\d GMT$/, " UTC")}</time>

/** How to turn email on: said plainly, for the organizer to pass on to whoever runs the server. */
export const EmailSetup = () => (
  <Card title="Email is not set up on this server" id="email-setup" class="email-setup">
    <p>Convene needs an SMTP server to send invitations. Whoever runs Convene sets two environment variables and restarts it:</p>
    <dl class="details">
      <dt><code>SMTP_URL</code></dt>
      <dd>The mail server, e.g. <code>smtps://user:password@mail.example.org:465</code> (or <code>smtp://…:587</code>).</dd>
      <dt><code>MAIL_FROM</code></dt>
      <dd>The sender of every email, e.g. <code>Acme Events &lt;events@example.org&gt;</code>.</dd>
    </dl>
    <p class="muted">Until then, invitation links can still be copied from each guest's page.</p>
  </Card>
)

const Counts = (props: { byState: { readonly queued: number; readonly sent: number; readonly failed: number } }) => (
  <div class="stats invitation-stats" aria-label="Invitations by state">
    <div class="stat"><span class="value">{count(props.byState.sent)}</span><span class="label">Sent</span></div>
    <div class="stat"><span class="value">{count(props.byState.queued)}</span><span class="label">Queued</span></div>
    <div class="stat"><span class="value">{count(props.byState.failed)}</span><span class="label">Failed</span></div>
  </div>
)

export const InvitationsPage = (props: {
  site: Site
  member: Member
  flash: FlashView | null
  event: EventSummary
  configured: boolean
  /** The daily email quota (when email is set up). */
  quota: QuotaState | null
  canSend: boolean
  byState: { readonly queued: number; readonly sent: number; readonly failed: number }
  invitations: ReadonlyArray<Invitation>
  total: number
  skip: number
}) => {
  const { event, site } = props
  const sendButton = props.configured && props.canSend
    ? <a class="button" href={site.href(invitationsPath(event, "/new"))}>Send invitations</a>
    : null
  return (
    <Layout site={site} member={props.member} title={`Invitations · ${event.name}`} section="events" flash={props.flash}>
      <PageHeader
        title="Invitations"
        lead={<>{event.name} · {event.when}</>}
        back={{ href: site.href(eventPath(event, "/guests")), label: "Guest list" }}
        actions={sendButton}
      />
      {props.configured ? null : <EmailSetup />}
      {props.quota === null ? null : <QuotaLine quota={props.quota} />}
      {props.total === 0
        ? (
          <EmptyState title="No invitations sent yet">
            {props.configured && props.canSend
              ? <p>Invite guests by email: each gets their own RSVP link and a calendar file. <a href={site.href(invitationsPath(event, "/new"))}>Send invitations</a></p>
              : props.configured
              ? <p>A team member can send invitations from the guest list.</p>
              : null}
          </EmptyState>
        )
        : (
          <>
            <Counts byState={props.byState} />
            <p class="result-count muted">{plural(props.total, "invitation")}, newest first.</p>
            <div class="table-wrap" id="invitation-log" data-poll={props.byState.queued > 0 ? "5" : undefined}>
              <table class="stack invitation-table">
                <caption class="visually-hidden">Invitations sent for {event.name}, newest first</caption>
                <thead>
                  <tr>
                    <th scope="col">Recipient</th>
                    <th scope="col">Status</th>
                    <th scope="col" class="num">Attempts</th>
                    <th scope="col">Last error</th>
                    <th scope="col">Sent</th>
                  </tr>
                </thead>
                <tbody>
                  {props.invitations.map((i) => (
                    <tr>
                      <td class="primary">
                        <span>{i.name}</span>
                        <span class="sub">{i.email}</span>
                        <span class="sub">“{i.subject}” · queued <When iso={i.createdAt} /></span>
                      </td>
                      <td data-label="Status">
                        <Badge tone={STATE_BADGES[i.status].tone}>{STATE_BADGES[i.status].label}</Badge>
                        {i.status === "queued" && i.nextAttemptAt !== null && i.attempts > 0
                          ? <span class="sub">next try <When iso={i.nextAttemptAt} /></span>
                          : null}
                      </td>
                      <td data-label="Attempts" class="num">{count(i.attempts)}</td>
                      <td data-label="Last error">{i.lastError === null ? <span class="muted">none</span> : <span class="invitation-error">{i.lastError}</span>}</td>
                      <td data-label="Sent">{i.sentAt === null ? <span class="muted">not yet</span> : <When iso={i.sentAt} />}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <Pager
              total={props.total}
              limit={INVITATIONS_PER_PAGE}
              skip={props.skip}
              noun="invitations"
              href={(skip) => site.href(invitationsPath(event, skip === 0 ? "" : `?skip=${skip}`))}
            />
          </>
        )}
    </Layout>
  )
}

/** The form's values as hidden fields (the preview's Send and Change buttons carry them). */
const ComposeFields = ({ form }: { form: ComposeForm }) => (
  <>
    <input type="hidden" name="audience" value={form.audience} />
    {form.audience === "selected"
      ? form.personIds.map((id) => <input type="hidden" name="personId" value={id} />)
      : form.statuses.map((s) => <input type="hidden" name="status" value={s} />)}
    <input type="hidden" name="subject" value={form.subject} />
    <input type="hidden" name="message" value={form.message} />
  </>
)

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
  /** Why nothing can be sent (no public page), if so. */
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

export const PreviewPage = (props: {
  site: Site
  member: Member
  event: EventSummary
  form: ComposeForm
  recipients: ReadonlyArray<Recipient>
  /** Of the recipients, those invited in the last ten minutes, who get no email now. */
  skipped: number
  sample: { readonly to: string; readonly subject: string; readonly text: string; readonly input: InvitationInput }
  from: string
  quota: QuotaState
}) => {
  const { event, form, site } = props
  const sending = props.recipients.length - props.skipped
  const guest = props.sample.input.guest
  const name = `${guest.firstName} ${guest.lastName}`.trim()
  const others = (sending > 0 ? sending : props.recipients.length) - 1
  return (
    <Layout site={site} member={props.member} title={`Preview · ${event.name}`} section="events">
      <PageHeader
        title="Check the invitation"
        lead={<>{plural(sending, "guest")} will get this email, each with their own RSVP link and a calendar file.</>}
        back={{ href: site.href(eventPath(event, "/guests")), label: "Guest list" }}
      />
      {props.skipped > 0
        ? (
          <p class="flash info" id="skipped">
            {plural(props.skipped, "guest")} got an invitation to this event in the last {REINVITE_WINDOW_MINUTES} minutes and will be skipped.
          </p>
        )
        : null}
      <QuotaShort quota={props.quota} needed={sending} />
      <Card title={`The email ${name} will get`} id="preview">
        <dl class="details email-headers">
          <dt>From</dt>
          <dd>{props.from}</dd>
          <dt>To</dt>
          <dd>
            {name} &lt;{props.sample.to}&gt;{others > 0 ? <span class="muted"> and {plural(others, "other guest")}</span> : null}
          </dd>
          <dt>Subject</dt>
          <dd>{props.sample.subject}</dd>
          <dt>Attachment</dt>
          <dd>invitation.ics (adds the event to the guest's calendar)</dd>
        </dl>
        <h3 class="email-view">As most mail apps show it</h3>
        <InvitationPreview input={props.sample.input} />
        <details class="email-text">
          <summary>Plain-text version</summary>
          <pre>{props.sample.text}</pre>
        </details>
      </Card>
      {props.recipients.length > 1
        ? (
          <details class="card recipients-all">
            <summary>All {plural(props.recipients.length, "recipient")}</summary>
            <ul class="list">
              {props.recipients.slice(0, 500).map((r) => <li>{r.name} <span class="muted">{r.email}</span></li>)}
              {props.recipients.length > 500 ? <li class="muted">… and {count(props.recipients.length - 500)} more</li> : null}
            </ul>
          </details>
        )
        : null}
      <div class="form-actions">
        <PostForm action={site.href(invitationsPath(event))} csrf={props.member.csrf} class="inline-form">
          <ComposeFields form={form} />
          <button type="submit" class="big">Send {plural(sending, "invitation")}</button>
        </PostForm>
        <PostForm action={site.href(invitationsPath(event, "/new"))} csrf={props.member.csrf} class="inline-form">
          <ComposeFields form={form} />
          <input type="hidden" name="edit" value="1" />
          <button type="submit" class="secondary">Change the email</button>
        </PostForm>
      </div>
    </Layout>
  )
}

/** The page for a member who may not send because email is not set up. */
export const NotConfiguredPage = (props: { site: Site; member: Member; event: EventSummary }) => (
  <Layout site={props.site} member={props.member} title={`Send invitations · ${props.event.name}`} section="events">
    <PageHeader
      title="Send invitations"
      lead={<>{props.event.name} · {props.event.when}</>}
      back={{ href: props.site.href(eventPath(props.event, "/guests")), label: "Guest list" }}
    />
    <EmailSetup />
  </Layout>
)
