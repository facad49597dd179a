/**
 * An organization's public page (`GET /o/<orgSlug>`, CONTRACT §16): its upcoming public events in
 * date order, each with its date and time in the event's own zone, its place and a link to its
 * public page `/e/<slug>`, and the addresses of the calendar feed and the JSON feed. No script:
 * the page loads the dashboard's stylesheet and nothing else; search engines may list it.
 */
import type { ComponentChildren } from "preact"
import { virtualLocationsOf } from "../../Events/EventJson.js"
import type { EventRow } from "../../Events/EventRow.js"
import type { ListedEvent } from "../../Guests/OrganizationListing.js"
import { DayBadge } from "../Kit/Components.js"
import { dateTimeIn, placeInWords, plural } from "../Kit/Format.js"
import type { Site } from "../Kit/Layout.js"

/** The document of a public page: the dashboard's stylesheet, no script, indexable. */
const PublicShell = (props: { site: Site; title: string; description: string; head?: ComponentChildren; children: ComponentChildren }) => (
  <html lang="en">
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <title>{props.title}</title>
      <meta name="description" content={props.description} />
      <link rel="icon" href={props.site.asset("favicon.svg")} type="image/svg+xml" />
      <link rel="stylesheet" href={props.site.asset("app.css")} />
      {props.head}
    </head>
    <body class="plain org-page">
      <main id="main" class="content narrow">{props.children}</main>
    </body>
  </html>
)

/** What an unknown organization's address answers (404). */
export const OrgNotFoundPage = ({ site }: { site: Site }) => (
  <PublicShell site={site} title="Not found" description="This page does not exist.">
    <div class="card message">
      <h1>Not found</h1>
      <p>There is no organization at this address. Please check the link you followed.</p>
    </div>
  </PublicShell>
)

/** Where the event happens, in a few words (Kit/Format.ts): its place and city; "Online" without one (never the link). */
const placeOf = (event: EventRow): string | null =>
  placeInWords(
    [event.location_name, event.location_city, event.location_country],
    virtualLocationsOf(event).some((l) => l.url !== null || l.phoneNumber !== null)
  )

const Places = ({ listed }: { listed: ListedEvent }) =>
  listed.placesLeft === null ? null : (
    <p class="event-guests">
      {listed.placesLeft === 0 ? <strong>Full: waitlist</strong> : <><strong>{plural(listed.placesLeft, "place")}</strong> left</>}
    </p>
  )

export interface OrgPageProps {
  readonly site: Site
  readonly name: string
  readonly events: ReadonlyArray<ListedEvent>
  /** A public event page's path (`/e/<slug>`, with the prefix). */
  readonly eventHref: (slug: string) => string
  readonly calendarUrl: string
  readonly jsonUrl: string
}

export const OrgPage = (props: OrgPageProps) => {
  const { events, name, site } = props
  return (
    <PublicShell
      site={site}
      title={`Events · ${name}`}
      description={`Upcoming events of ${name}.`}
      head={
        <>
          <link rel="alternate" type="text/calendar" title={`${name}: events`} href={props.calendarUrl} />
          <link rel="alternate" type="application/json" title={`${name}: events (JSON)`} href={props.jsonUrl} />
        </>
      }
    >
          <header class="page-header">
            <div>
              <h1>{name}</h1>
              <p class="lead">{events.length === 0 ? "No upcoming events." : `Upcoming events: ${events.length}`}</p>
            </div>
          </header>
          {events.length === 0
            ? <p class="card">There are no upcoming public events right now. Please come back later.</p>
            : (
              <ol class="event-list org-events">
                {events.map((listed) => {
                  const { event } = listed
                  const place = placeOf(event)
                  return (
                    <li class="event-item">
                      <DayBadge iso={event.primary_date_utc} timeZone={event.timezone} />
                      <div class="event-main">
                        <h2 class="event-name"><a href={props.eventHref(event.slug ?? "")}>{event.name}</a></h2>
                        <p class="event-when">
                          <time datetime={event.primary_date}>{dateTimeIn(event.primary_date, event.timezone)}</time>
                        </p>
                        {place === null ? null : <p class="event-where">{place}</p>}
                        <p class="event-where">
                          {listed.registrationOpen
                            ? event.registration_approval === 1 ? "Registration open, with the organizer's approval" : "Registration open"
                            : "Registration closed"}
                        </p>
                      </div>
                      <Places listed={listed} />
                    </li>
                  )
                })}
              </ol>
            )}
          <section aria-labelledby="follow-title" class="card follow">
            <h2 id="follow-title">Follow these events</h2>
            <p>
              <a class="button secondary" href={props.calendarUrl.replace(/^https?:/, "webcal:")}>Subscribe in your calendar app</a>
            </p>
            <p>
              Or add this address to your calendar app as a subscription (new events appear by themselves):{" "}
              <a class="address" href={props.calendarUrl}>{props.calendarUrl}</a>
            </p>
            <p>
              For websites: the same list as JSON, at <a class="address" href={props.jsonUrl}>{props.jsonUrl}</a>
            </p>
          </section>
    </PublicShell>
  )
}
