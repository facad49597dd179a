/** An event's page: when and where, its guest counts by RSVP status, its public page, its settings. */
import type { ComponentChildren } from "preact"
import type { QuotaState } from "../../Email/EmailQuota.js"
import type { Event } from "../../Events/Domain.js"
import type { DoorLink } from "../../Guests/DoorLinks.js"
import { DoorLinksCard } from "../Guests/DoorLinksCard.js"
import { type GuestCounts, RSVP_STATUSES } from "../Guests/State.js"
import { QuotaReached } from "../Invitations/EmailQuota.js"
import { Badge, Card, PageHeader } from "../Kit/Components.js"
import { count, dateTimeIn, plural } from "../Kit/Format.js"
import { type FlashView, Layout, type Member, type Site } from "../Kit/Layout.js"
import { eventPagePath, EventTime, timeZoneLabel } from "./EventTime.js"
import { PublicAddress, type PublicFace } from "./PublicAddress.js"
import { RegistrationCard } from "./RegistrationCard.js"

const Stat = (props: { href: string; value: number; label: string; tone?: string }) => (
  <a class={`stat${props.tone ? ` ${props.tone}` : ""}`} href={props.href}>
    <span class="value">{count(props.value)}</span>
    <span class="label">{props.label}</span>
  </a>
)

const External = ({ href, children }: { href: string; children: ComponentChildren }) => (
  <a href={href} rel="noopener noreferrer nofollow" class="external">{children}</a>
)

export const EventPage = (props: {
  site: Site
  member: Member
  flash: FlashView | null
  event: Event
  counts: GuestCounts
  past: boolean
  canEdit: boolean
  /** The daily email quota, when email is set up: the page says when it is used up. */
  emailQuota: QuotaState | null
  /** the address of guests' RSVP links up to their invite code, when the event has a page address */
  rsvpPage: string | null
  /** the event's public page (CONTRACT §16) */
  publicFace: PublicFace
  /** The event's door links, for an Admin (Web/Guests/DoorLinksCard.tsx). */
  doorLinks?: ReadonlyArray<DoorLink> | null
}) => {
  const { counts, event, site } = props
  const base = eventPagePath(event)
  const guests = (query = "") => site.href(`${base}/guests${query}`)
  const address = [
    event.locationAddress,
    event.locationApartment,
    [event.locationPostalCode, event.locationCity].filter((s) => s !== null && s !== "").join(" "),
    event.locationState,
    event.locationCountry
  ].filter((s) => s !== null && s !== "")
  const online = event.virtualLocations.filter((l) => l.url !== null || l.phoneNumber !== null || l.password !== null)
  return (
    <Layout site={site} member={props.member} title={event.name} section="events" flash={props.flash}>
      <PageHeader
        back={{ href: site.href("/app/events"), label: "All events" }}
        title={event.name}
        lead={<><EventTime event={event} /> <span class="nowrap">· {timeZoneLabel(event.timezone)}</span></>}
        actions={
          <>
            <a class="button" href={guests()}>Guest list</a>
            <a class="button secondary" href={site.href(`${base}/checkin`)}>Check-in (door mode)</a>
            <a class="button secondary" href={site.href(`${base}/invitations`)}>Invitations</a>
            {props.canEdit ? <a class="button secondary" href={site.href(`${base}/edit`)}>Edit event</a> : null}
          </>
        }
      />
      <ul class="event-badges" aria-label="Status">
        <li>{props.past ? <Badge tone="neutral">Past</Badge> : <Badge tone="info">Upcoming</Badge>}</li>
        {event.isPublic ? <li><Badge tone="good">Public event</Badge></li> : null}
        {event.primarySlug === null ? <li><Badge tone="neutral">No RSVP page</Badge></li> : null}
        {event.capacity !== null ? <li><Badge tone="warn">Capacity {count(event.capacity)}</Badge></li> : null}
        {event.ticketingEnabled ? <li><Badge tone="info">Ticketing</Badge></li> : null}
      </ul>
      {props.emailQuota === null ? null : <QuotaReached quota={props.emailQuota} />}

      <section aria-labelledby="guests-title">
        <h2 id="guests-title" class="section-title">Guests</h2>
        <div class="stats event-stats">
          {RSVP_STATUSES.map((status) => (
            <Stat href={guests(`?status=${status}`)} value={counts.byStatus[status]} label={status} tone={`rsvp-${status.toLowerCase()}`} />
          ))}
          <Stat href={guests("?attendance=Attended")} value={counts.attended} label="Checked in" tone="checked-in" />
          <Stat href={guests()} value={counts.total} label="Total" tone="total" />
        </div>
        {counts.total === 0
          ? <p class="muted">No guests yet. Open the <a href={guests()}>guest list</a> to add people from your contacts or by email.</p>
          : null}
      </section>

      <div class="event-columns">
        <Card title="When and where" id="where">
          <dl class="details">
            <dt>Starts</dt>
            <dd><EventTime event={event} /></dd>
            {event.endDate === null ? null : (
              <>
                <dt>Ends</dt>
                <dd><time datetime={event.endDate}>{dateTimeIn(event.endDate, event.timezone)}</time></dd>
              </>
            )}
            <dt>Time zone</dt>
            <dd>{timeZoneLabel(event.timezone)}</dd>
            <dt>Place</dt>
            <dd>
              {event.locationName === null && address.length === 0
                ? <span class="muted">No place given</span>
                : (
                  <>
                    {event.locationName === null ? null : <strong class="block">{event.locationName}</strong>}
                    {address.map((line) => <span class="block">{line}</span>)}
                  </>
                )}
            </dd>
            {event.locationPhoneNumber === null ? null : (
              <>
                <dt>Phone</dt>
                <dd>{event.locationPhoneNumber}</dd>
              </>
            )}
            {event.locationWebsite === null ? null : (
              <>
                <dt>Website</dt>
                <dd><External href={event.locationWebsite}>{event.locationWebsite}</External></dd>
              </>
            )}
            <dt>Online</dt>
            <dd>
              {online.length === 0 ? <span class="muted">Not online</span> : (
                <ul class="plain-list">
                  {online.map((l) => (
                    <li>
                      {l.url === null ? null : <External href={l.url}>{l.url}</External>}
                      {l.sourceType === null ? null : <span class="muted"> ({l.sourceType})</span>}
                      {l.password === null ? null : <span class="block muted">Password: <span class="mono">{l.password}</span></span>}
                      {l.phoneNumber === null ? null : <span class="block muted">Dial-in: {l.phoneNumber}</span>}
                    </li>
                  ))}
                </ul>
              )}
            </dd>
            <dt>Tags</dt>
            <dd>
              {event.eventTags.length === 0 ? <span class="muted">None</span> : (
                <ul class="event-tags">{event.eventTags.map((tag) => <li><Badge tone="neutral">{tag}</Badge></li>)}</ul>
              )}
            </dd>
          </dl>
        </Card>

        <Card title="RSVP page" id="rsvp">
          {props.rsvpPage === null
            ? <p class="muted">This event has no page address, so invited guests get no RSVP links.{props.canEdit ? " Give it a page address in Edit event to send links." : ""}</p>
            : (
              <p>
                Invited guests answer through their own personal RSVP links: copy one from the <a href={guests()}>guest list</a>, or send
                invitations by email.
              </p>
            )}
          <h3>Description</h3>
          {event.rsvpDescription === null ? <p class="muted">No description.</p> : <p class="prose">{event.rsvpDescription}</p>}
          {event.rsvpQuestions.length === 0 ? null : (
            <>
              <h3>Questions for guests</h3>
              <ol class="plain-list numbered">
                {event.rsvpQuestions.map((q) => (
                  <li>
                    <strong>{q.title}</strong>
                    {q.description === null ? null : <span class="block muted">{q.description}</span>}
                  </li>
                ))}
              </ol>
            </>
          )}
          <h3>Capacity and tickets</h3>
          <p>
            {event.capacity === null ? "No guest limit." : `At most ${plural(event.capacity, "guest")}.`}{" "}
            {event.ticketingEnabled ? "Ticketing is on: purchases can be recorded for guests." : "No ticketing."}
          </p>
        </Card>

        <PublicAddress event={event} face={props.publicFace} />
        <RegistrationCard event={event} canEdit={props.canEdit} />

        <Card title="Link preview and images" id="preview">
          {event.featuredImage === null ? null : <img class="featured" src={event.featuredImage} alt="Featured image" loading="lazy" />}
          <h3>Link preview description</h3>
          {event.linkPreviewDescription === null
            ? <p class="muted">None: links show the description{event.rsvpDescription === null ? " (none either)" : ""}.</p>
            : event.linkPreviewDescription === "" ? <p class="muted">Empty on purpose.</p> : <p class="prose">{event.linkPreviewDescription}</p>}
          {event.images.length === 0 ? null : (
            <>
              <h3>Images</h3>
              <ul class="plain-list">
                {event.images.map((image) => <li><span class="muted">{image.type}:</span> <External href={image.url}>{image.url}</External></li>)}
              </ul>
            </>
          )}
        </Card>

        <Card title="Guest list columns" id="columns">
          {event.customColumns.length === 0
            ? <p class="muted">No extra columns. {props.canEdit ? "Add some in Edit event to note things such as a table or a badge." : ""}</p>
            : <ul class="event-tags">{event.customColumns.map((c) => <li><Badge tone="neutral">{c}</Badge></li>)}</ul>}
        </Card>
        {props.doorLinks ? <DoorLinksCard site={site} member={props.member} event={event} links={props.doorLinks} /> : null}
      </div>
    </Layout>
  )
}
