/** The real email for one recipient, before anything is sent: send it to every recipient, or change it. */
import type { QuotaState } from "../../Email/EmailQuota.js"
import { REINVITE_WINDOW_MINUTES } from "../../Invitations/Domain.js"
import { type InvitationInput, InvitationPreview } from "../../Invitations/InvitationEmail.js"
import { type EventSummary, eventPath } from "../Events/Summary.js"
import { Card, PageHeader } from "../Kit/Components.js"
import { count, plural } from "../Kit/Format.js"
import { Layout, type Member, PostForm, type Site } from "../Kit/Layout.js"
import { type ComposeForm, invitationsPath, type Recipient } from "./Compose.js"
import { QuotaShort } from "./EmailQuota.js"

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
