/**
 * Invitations by email (docs/integrators.md#email-invitations) in the dashboard: an event's
 * invitations log with their states, and, without SMTP_URL and MAIL_FROM, how to set email up (no
 * way to send is offered then).
 */
import type { QuotaState } from "../../Email/EmailQuota.js"
import type { Invitation } from "../../Invitations/Domain.js"
import { type EventSummary, eventPath } from "../Events/Summary.js"
import { Badge, Card, EmptyState, PageHeader, Pager } from "../Kit/Components.js"
import { count, plural } from "../Kit/Format.js"
import { type FlashView, Layout, type Member, type Site } from "../Kit/Layout.js"
import { INVITATIONS_PER_PAGE, invitationsPath } from "./Compose.js"
import { QuotaLine } from "./EmailQuota.js"

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
