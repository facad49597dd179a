/** Events: the list (upcoming and past, search, pages) and an event's page with its guest counts. */
import type { ComponentChildren, VNode } from "preact"
import type { QuotaState } from "../../Email/EmailQuota.js"
import type { Event } from "../../Events/Domain.js"
import { count, dateTimeIn, plural } from "../Kit/Format.js"
import { Badge, Card, EmptyState, type FlashView, Layout, type Member, PageHeader, Pager, type Site } from "../Html.js"
import { QuotaReached } from "../Invitations/EmailQuota.js"
import { RSVP_STATUSES, type RsvpChoice } from "../Guests/State.js"

export type When = "upcoming" | "past"

/** The guest list at a glance (`GuestLists.counts`). */
export interface GuestCounts {
  readonly byStatus: Readonly<Record<RsvpStatusName, number>>
  readonly attended: number
  readonly total: number
}

export type RsvpStatusName = RsvpChoice

const monthDay = (iso: string, timeZone: string) => {
  const parts = new Intl.DateTimeFormat("en-US", { timeZone, month: "short", day: "numeric" }).formatToParts(new Date(iso))
  return { month: parts.find((p) => p.type === "month")?.value ?? "", day: parts.find((p) => p.type === "day")?.value ?? "" }
}

/** Where an event happens, in a few words: its place and city, and whether it is online too. */
const placeOf = (event: Event) => {
  const place = [event.locationName, event.locationCity, event.locationCountry].filter((s) => s !== null && s !== "").join(", ")
  const online = event.virtualLocations.some((l) => l.url !== null || l.phoneNumber !== null)
  return place === "" ? (online ? "Online" : null) : online ? `${place} · and online` : place
}

const TIME_ZONE_LABEL = (zone: string) => zone.replaceAll("_", " ")

/** The event's date and time in its own time zone. */
export const EventTime = ({ event }: { event: Event }) => (
  <time datetime={event.primaryDate}>{dateTimeIn(event.primaryDate, event.timezone)}</time>
)

const eventPath = (event: Event) => `/app/events/${encodeURIComponent(event.eventId)}`

export const EventsListPage = (props: {
  site: Site
  member: Member
  flash: FlashView | null
  canCreate: boolean
  when: When
  query: string
  events: ReadonlyArray<Event>
  counts: ReadonlyMap<string, GuestCounts>
  total: number
  skip: number
  limit: number
  /** whether the organization has any event at all (for what the empty list says) */
  anyEvents: boolean
}) => {
  const { site } = props
  const href = (when: When, skip = 0) => {
    const params = new URLSearchParams()
    if (when === "past") params.set("when", "past")
    if (props.query !== "") params.set("q", props.query)
    if (skip > 0) params.set("skip", String(skip))
    const query = params.toString()
    return site.href(`/app/events${query === "" ? "" : `?${query}`}`)
  }
  const newEvent = props.canCreate ? <a class="button" href={site.href("/app/events/new")}>New event</a> : null
  return (
    <Layout site={site} member={props.member} title={props.when === "past" ? "Past events" : "Events"} section="events" flash={props.flash}>
      <PageHeader title="Events" lead={`Everything ${props.member.organization.name} runs, in each event's own time zone.`} actions={newEvent} />
      <nav class="tabs" aria-label="Which events">
        <a href={href("upcoming")} aria-current={props.when === "upcoming" ? "page" : undefined}>Upcoming</a>
        <a href={href("past")} aria-current={props.when === "past" ? "page" : undefined}>Past</a>
      </nav>
      <form method="get" action={site.href("/app/events")} class="filters" role="search" data-live="#event-results">
        {props.when === "past" ? <input type="hidden" name="when" value="past" /> : null}
        <div class="field">
          <label for="f-q">Search by name</label>
          <input id="f-q" name="q" type="search" value={props.query} maxLength={200} autocomplete="off" />
        </div>
        <button type="submit" class="secondary">Search</button>
      </form>
      <div id="event-results" aria-live="polite">
        {props.events.length === 0
          ? <EventsEmpty {...props} href={href} newEvent={newEvent} />
          : (
            <>
              <p class="visually-hidden">{plural(props.total, props.when === "past" ? "past event" : "upcoming event")}</p>
              <ol class="event-list">
                {props.events.map((event) => {
                  const day = monthDay(event.primaryDate, event.timezone)
                  const place = placeOf(event)
                  const counts = props.counts.get(event.eventId)
                  return (
                    <li class="event-item">
                      <div class="event-day" aria-hidden="true">
                        <span class="month">{day.month}</span>
                        <span class="day">{day.day}</span>
                      </div>
                      <div class="event-main">
                        <h2 class="event-name"><a href={site.href(eventPath(event))}>{event.name}</a></h2>
                        <p class="event-when">
                          <EventTime event={event} /> <span class="muted nowrap">· {TIME_ZONE_LABEL(event.timezone)}</span>
                        </p>
                        {place === null ? null : <p class="event-where">{place}</p>}
                        {event.eventTags.length === 0 ? null : (
                          <ul class="event-tags" aria-label="Tags">
                            {event.eventTags.map((tag) => <li><Badge tone="neutral">{tag}</Badge></li>)}
                          </ul>
                        )}
                      </div>
                      {counts === undefined ? null : (
                        <p class="event-guests">
                          {counts.total === 0
                            ? <span class="muted">No guests yet</span>
                            : props.when === "past"
                            ? <><strong>{count(counts.attended)}</strong> checked in <span class="muted">of {plural(counts.total, "guest")}</span></>
                            : <><strong>{count(counts.byStatus.Accepted)}</strong> accepted <span class="muted">of {plural(counts.total, "guest")}</span></>}
                        </p>
                      )}
                    </li>
                  )
                })}
              </ol>
              <Pager total={props.total} limit={props.limit} skip={props.skip} href={(skip) => href(props.when, skip)} noun="events" />
            </>
          )}
      </div>
    </Layout>
  )
}

const EventsEmpty = (props: {
  site: Site
  when: When
  query: string
  anyEvents: boolean
  canCreate: boolean
  href: (when: When) => string
  newEvent: VNode | null
}) => {
  if (props.query !== "") {
    return (
      <EmptyState title={`No ${props.when} events match “${props.query}”`}>
        <p>Check the spelling, search the {props.when === "past" ? "upcoming" : "past"} events, or clear the search.</p>
        <p class="actions center">
          <a class="button secondary" href={props.href(props.when === "past" ? "upcoming" : "past")}>
            Search {props.when === "past" ? "upcoming" : "past"} events
          </a>
          <a class="button secondary" href={props.site.href(props.when === "past" ? "/app/events?when=past" : "/app/events")}>Clear the search</a>
        </p>
      </EmptyState>
    )
  }
  if (!props.anyEvents) {
    return (
      <EmptyState title="No events yet">
        {props.canCreate
          ? <p>Create your first event: give it a name and a date, then add guests and send them their RSVP links.</p>
          : <p>When an Admin of your organization creates an event, it shows up here.</p>}
        {props.newEvent === null ? null : <p class="actions center">{props.newEvent}</p>}
      </EmptyState>
    )
  }
  return props.when === "upcoming"
    ? (
      <EmptyState title="No upcoming events">
        <p>{props.canCreate ? "Plan the next one, or look back at past events." : "Past events are under Past."}</p>
        <p class="actions center">
          {props.newEvent}
          <a class="button secondary" href={props.href("past")}>See past events</a>
        </p>
      </EmptyState>
    )
    : (
      <EmptyState title="No past events yet">
        <p>Events move here once their start time has passed.</p>
        <p class="actions center"><a class="button secondary" href={props.href("upcoming")}>See upcoming events</a></p>
      </EmptyState>
    )
}

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
  /** the public RSVP page's address, when the event has one */
  rsvpPage: string | null
}) => {
  const { counts, event, site } = props
  const base = eventPath(event)
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
        lead={<><EventTime event={event} /> <span class="nowrap">· {TIME_ZONE_LABEL(event.timezone)}</span></>}
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
            <dt>Time zone</dt>
            <dd>{TIME_ZONE_LABEL(event.timezone)}</dd>
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
            ? <p class="muted">This event has no public RSVP page, so guests get no RSVP links.{props.canEdit ? " Give it a page address in Edit event to send links." : ""}</p>
            : (
              <>
                <p>
                  The event has a public RSVP page at <span class="mono address">{props.rsvpPage}</span>. Guests answer through their own
                  personal links (this address with their invite code): copy one from the <a href={guests()}>guest list</a>.
                </p>
              </>
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
      </div>
    </Layout>
  )
}
