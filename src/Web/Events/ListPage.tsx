/** Events: the list (upcoming and past, search, pages), with each event's guest counts. */
import type { VNode } from "preact"
import type { Event } from "../../Events/Domain.js"
import type { GuestCounts } from "../Guests/State.js"
import { Badge, DayBadge, EmptyState, PageHeader, Pager } from "../Kit/Components.js"
import { count, placeInWords, plural } from "../Kit/Format.js"
import { type FlashView, Layout, type Member, type Site } from "../Kit/Layout.js"
import { eventPagePath, EventTime, timeZoneLabel, type When } from "./EventTime.js"

/** Where an event happens, in a few words (Kit/Format.ts). */
const placeOf = (event: Event) =>
  placeInWords(
    [event.locationName, event.locationCity, event.locationCountry],
    event.virtualLocations.some((l) => l.url !== null || l.phoneNumber !== null)
  )

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
                  const place = placeOf(event)
                  const counts = props.counts.get(event.eventId)
                  return (
                    <li class="event-item">
                      <DayBadge iso={event.primaryDate} timeZone={event.timezone} />
                      <div class="event-main">
                        <h2 class="event-name"><a href={site.href(eventPagePath(event))}>{event.name}</a></h2>
                        <p class="event-when">
                          <EventTime event={event} /> <span class="muted nowrap">· {timeZoneLabel(event.timezone)}</span>
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
