/**
 * The event's public page (CONTRACT §16, "The page"), server-rendered on the dashboard's stylesheet
 * and kit, with no script: the event's name, when (in its own time zone, named), where (the address
 * a plain link to a map search), its description as text with its line breaks, the header image,
 * the organization, an "add to calendar" link, the places left, and the registration form while
 * registration is open (Form.tsx). Nothing private: no virtual location's URL or password, no guest.
 * Its head carries the link previews' tags and the event as JSON-LD (Meta.ts).
 */
import type { ComponentChildren } from "preact"
import { longDateTimeIn } from "../../Domain/DateText.js"
import { virtualLocationsOf } from "../../Events/EventJson.js"
import type { EventRow } from "../../Events/EventRow.js"
import type { PublicEvent } from "../../SelfRegistration/SelfRegistration.js"
import type { Site } from "../Kit/Layout.js"
import { type FormState, Refusals, RegisterForm } from "./Form.js"
import { eventJsonLd, headerImage, mapSearch, placeParts, previewDescription, previewImage, scriptSafeJson } from "./Meta.js"

/** What a link preview shows of the page. */
export interface Preview {
  readonly description: string | null
  readonly image: string | undefined
  readonly url: string
  readonly jsonLd: string
}

/** A public page's document: the dashboard's stylesheet, no script but the JSON-LD data block. */
export const PublicDocument = (props: { site: Site; title: string; preview?: Preview | undefined; children: ComponentChildren }) => (
  <html lang="en">
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <title>{props.title}</title>
      {props.preview === undefined ? <meta name="robots" content="noindex" /> : (
        <>
          {props.preview.description === null ? null : <meta name="description" content={props.preview.description} />}
          <meta property="og:type" content="website" />
          <meta property="og:title" content={props.title} />
          {props.preview.description === null ? null : <meta property="og:description" content={props.preview.description} />}
          {props.preview.image === undefined ? null : <meta property="og:image" content={props.preview.image} />}
          <meta property="og:url" content={props.preview.url} />
          <link rel="canonical" href={props.preview.url} />
          <script type="application/ld+json" dangerouslySetInnerHTML={{ __html: props.preview.jsonLd }} />
        </>
      )}
      <link rel="icon" href={props.site.asset("favicon.svg")} type="image/svg+xml" />
      <link rel="stylesheet" href={props.site.asset("app.css")} />
    </head>
    <body class="plain public">
      <main id="main" class="content narrow">{props.children}</main>
    </body>
  </html>
)

/** The link previews of an event's page. */
export const previewOf = (event: EventRow, organizer: string, url: string): Preview => ({
  description: previewDescription(event),
  image: previewImage(event),
  url,
  jsonLd: scriptSafeJson(eventJsonLd(event, organizer, url))
})

const Places = ({ left }: { left: number | undefined }) =>
  left === undefined ? null : left > 0
    ? <p class="places"><strong>{left === 1 ? "1 place left" : `${left.toLocaleString("en-US")} places left`}</strong></p>
    : <p class="places full"><strong>This event is full.</strong> New registrations join the waitlist.</p>

const EventDetails = ({ calendar, view }: { view: PublicEvent; calendar: string }) => {
  const { event, organizer } = view
  const image = headerImage(event)
  const parts = placeParts(event)
  const online = virtualLocationsOf(event).length > 0
  return (
    <article class="card public-event" aria-labelledby="event-name">
      {image === undefined ? null : <img class="hero" src={image} alt="" />}
      {organizer === "" ? null : <p class="organizer">{organizer} presents</p>}
      <h1 id="event-name">{event.name}</h1>
      <p class="meta">
        <span class="label">When</span>{" "}
        <time datetime={event.primary_date}>{longDateTimeIn(event.primary_date, event.timezone)}</time> ({event.timezone} time)
      </p>
      {event.end_date === null ? null : (
        <p class="meta">
          <span class="label">Ends</span> <time datetime={event.end_date}>{longDateTimeIn(event.end_date, event.timezone)}</time>
        </p>
      )}
      {event.location_name === null && parts.length === 0 ? null : (
        <p class="meta">
          <span class="label">Where</span> {event.location_name}
          {event.location_name !== null && parts.length > 0 ? ", " : null}
          {parts.length === 0 ? null : <a class="address" href={mapSearch(parts.join(", "))} rel="noopener noreferrer">{parts.join(", ")}</a>}
        </p>
      )}
      {online ? <p class="meta"><span class="label">Online</span> Guests get the link to join.</p> : null}
      {event.rsvp_description === null || event.rsvp_description.trim() === ""
        ? null
        : <p class="description">{event.rsvp_description.replace(/\r\n?/g, "\n")}</p>}
      <Places left={view.placesLeft} />
      <p class="calendar-link"><a class="button secondary small" href={calendar}>Add to calendar</a></p>
    </article>
  )
}

export interface EventPageProps {
  readonly site: Site
  readonly view: PublicEvent
  readonly url: string
  readonly calendar: string
  /** The registration form's state, while registration is open. */
  readonly form: FormState | undefined
}

export const EventPage = ({ calendar, form, site, url, view }: EventPageProps) => (
  <PublicDocument site={site} title={view.organizer === "" ? view.event.name : `${view.event.name} · ${view.organizer}`} preview={previewOf(view.event, view.organizer, url)}>
    {form === undefined ? null : <Refusals errors={form.errors} />}
    <EventDetails view={view} calendar={calendar} />
    {view.open && form !== undefined
      ? <RegisterForm event={view.event} state={form} waitlist={view.placesLeft === 0} approval={view.event.registration_approval === 1} />
      : (
        <section class="card" aria-labelledby="closed-title">
          <h2 id="closed-title">Registration is closed</h2>
          <p>This event no longer takes registrations on this page. If you were invited, use the link from your invitation.</p>
        </section>
      )}
  </PublicDocument>
)

/** A message on a public page: not found, closed, refused, too many requests. */
export const PublicMessage = (props: { site: Site; title: string; message: string; back?: { href: string; label: string } | undefined; role?: "alert" | undefined }) => (
  <PublicDocument site={props.site} title={props.title}>
    <div class="card message" role={props.role}>
      <h1>{props.title}</h1>
      <p>{props.message}</p>
      {props.back === undefined ? null : <p><a class="button" href={props.back.href}>{props.back.label}</a></p>}
    </div>
  </PublicDocument>
)
