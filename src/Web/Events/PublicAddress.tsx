/**
 * An event's public page on its dashboard page (CONTRACT §16): for a public event with a page
 * address, the page's absolute address (`/e/<slug>` under PUBLIC_BASE_URL) to copy (the button
 * appears when scripts run; without them the address is selectable text), the organization's page
 * of public events, and whether people can register now; for a private one, that it has no public
 * page and how to publish it. Admins also read here that without email configured, the
 * registration form tells anyone whether an email is already registered.
 */
import type { Event } from "../../Events/Domain.js"
import { Card, CopyField } from "../Kit/Components.js"
import { dateTimeIn } from "../Kit/Format.js"

export interface PublicFace {
  /** The public page's absolute address; null when the event has none (private, or no page address). */
  readonly pageUrl: string | null
  /** The organization's page of public events (`/o/<orgSlug>`), absolute. */
  readonly organizationUrl: string
  /** Whether the viewer may edit the event (Admin and above). */
  readonly canEdit: boolean
  /** Whether emails can be sent (CONTRACT §14). */
  readonly emailConfigured: boolean
  /** Whether registration is open now by §16's rule. */
  readonly registrationOpenNow: boolean
}

const registrationNow = (event: Event, face: PublicFace) =>
  face.registrationOpenNow
    ? `Registration is open${event.registrationClosesAt === null ? " until the event starts" : ` until ${dateTimeIn(event.registrationClosesAt, event.timezone)}`}${
      event.registrationApproval ? "; registrations wait for your approval" : ""
    }.`
    : "Registration is closed: the page shows the event without a form."

export const PublicAddress = ({ event, face }: { event: Event; face: PublicFace }) => (
  <Card title="Public page" id="public-page">
    {face.pageUrl === null
      ? (
        <p>
          <strong>This event is private: it has no public page</strong>, and nobody can register for it by themselves. Guests come from
          the guest list and invitations only.{" "}
          {face.canEdit
            ? event.isPublic
              ? "To publish it, give it a page address in Edit event."
              : <>To publish it, tick <em>Public event</em> in Edit event{event.primarySlug === null ? " and give it a page address" : ""}.</>
            : "An Admin can publish it."}
        </p>
      )
      : (
        <>
          <p>Anyone with this address can see the event{face.registrationOpenNow ? " and register" : ""}; share it where your guests are.</p>
          <CopyField id="public-page-address" label="Public address" value={face.pageUrl} />
          <p><a href={face.pageUrl} rel="noopener">Open the public page</a></p>
          <p>{registrationNow(event, face)}</p>
          <p class="muted">
            Your organization's public events are listed at <a class="address" href={face.organizationUrl}>{face.organizationUrl}</a>.
          </p>
          {face.canEdit && !face.emailConfigured
            ? (
              <p class="flash info" role="note">
                Email is not configured, so registrations get no confirmation email, and the form's answer tells anyone whether an email
                is already registered for this event. Set <span class="mono">SMTP_URL</span> and <span class="mono">MAIL_FROM</span> to send
                confirmations instead.
              </p>
            )
            : null}
        </>
      )}
  </Card>
)
