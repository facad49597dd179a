/**
 * The RSVP page, server-rendered on the dashboard's templates and stylesheet (one product for
 * guests and organizers): readable on a phone, labelled for screen readers, no script needed.
 * Everything that comes from data is escaped by the renderer.
 */
import { longDateTimeIn } from "../../Domain/DateText.js"
import { isHttpUrl } from "../../Domain/Fields.js"
import { imagesOf, rsvpQuestionsOf, virtualLocationsOf } from "../../Events/EventJson.js"
import { describeEvent } from "../../Events/EventMapping.js"
import type { EventRow } from "../../Events/EventRow.js"
import type { QrDrawing } from "../../Guests/Tickets.js"
import { PlainLayout, type Site } from "../Kit/Layout.js"
import type { Invitation } from "../../Rsvp/Rsvp.js"

export const DIETARY_OPTIONS = ["Vegetarian", "Vegan", "Gluten-free", "Dairy-free", "Nut allergy", "Halal", "Kosher"] as const

const statusLabel: Record<string, string> = {
  Accepted: "you are coming",
  Declined: "you can't come",
  Maybe: "you might come",
  Waitlisted: "you are on the waitlist",
  Pending: "your registration awaits the host's approval",
  Invited: "no answer yet"
}

/** When the event happens, in its own time zone. */
const When = ({ event }: { event: EventRow }) => (
  <time datetime={event.primary_date}>{longDateTimeIn(event.primary_date, event.timezone)}</time>
)

const EventDetails = ({ calendar, event }: { event: EventRow; calendar?: string | undefined }) => {
  const images = imagesOf(event)
  // stored URLs are http(s) since they are validated; rows written before that are checked here too
  const header = [images.find((i) => i.type === "headerImg")?.url, event.featured_image]
    .find((url): url is string => typeof url === "string" && isHttpUrl(url))
  const place = [event.location_name, event.location_address, event.location_apartment, event.location_city, event.location_state,
    event.location_postal_code, event.location_country].filter((p): p is string => p !== null && p !== "")
  const online = virtualLocationsOf(event).flatMap((v) => v.url !== null && isHttpUrl(v.url) ? [{ url: v.url, sourceType: v.sourceType }] : [])
  const description = describeEvent(event.link_preview_description, event.rsvp_description)
  return (
    <div class="card">
      {header ? <img class="hero" src={header} alt="" /> : null}
      <h1>{event.name}</h1>
      <p class="meta"><span class="label">When</span> <When event={event} /></p>
      {place.length > 0 ? <p class="meta"><span class="label">Where</span> {place.join(", ")}</p> : null}
      {online.map((v) => (
        <p class="meta">
          <span class="label">Online</span> <a href={v.url} rel="noopener noreferrer">Join online{v.sourceType ? ` (${v.sourceType})` : ""}</a>
        </p>
      ))}
      {description ? <p>{description}</p> : null}
      {calendar ? <p class="calendar-link"><a class="button secondary small" href={calendar}>Add to calendar</a></p> : null}
    </div>
  )
}

export interface PageState {
  readonly saved: boolean
  readonly error?: string | undefined
  readonly csrf: string
  readonly action: string
  /** The guest's ticket, while they answered yes. */
  readonly ticket?: TicketView | undefined
  /** The guest's own calendar file of the event, when there is one. */
  readonly calendar?: string | undefined
}

/** A ticket as the page shows it: the code as people read it, and its QR code. */
export interface TicketView {
  readonly code: string
  readonly qr: QrDrawing
}

/** The guest's ticket: a QR code drawn as SVG on the server (no script, no inline style) and its code. */
const Ticket = ({ ticket }: { ticket: TicketView }) => (
  <section class="card ticket" aria-labelledby="ticket-title">
    <h2 id="ticket-title">Your ticket</h2>
    <svg
      class="qr"
      xmlns="http://www.w3.org/2000/svg"
      viewBox={`0 0 ${ticket.qr.size} ${ticket.qr.size}`}
      shape-rendering="crispEdges"
      role="img"
      aria-label={`QR code of your ticket ${ticket.code}`}
    >
      <rect width={ticket.qr.size} height={ticket.qr.size} fill="#fff" />
      <path d={ticket.qr.path} fill="#000" />
    </svg>
    <p class="code"><span class="visually-hidden">Ticket code: </span>{ticket.code}</p>
    <p>Show this ticket at the door: the staff scan the QR code, or type the code.</p>
    <p class="muted small-print">It is yours alone: it checks in one guest. A screenshot works too.</p>
  </section>
)

const Choice = (props: { value: string; label: string; current: string }) => (
  <label class="choice">
    <input type="radio" name="rsvpStatus" value={props.value} required checked={props.current === props.value} /> {props.label}
  </label>
)

export const InvitationPage = ({ invitation: { event, full, guest }, site, state }: { site: Site; invitation: Invitation; state: PageState }) => {
  const questions = rsvpQuestionsOf(event)
  const answered = new Map(guest.rsvpQuestionResponses.map((r) => [r.title, r.answers.join(", ")]))
  const dietary = guest.dietaryRestrictions ?? []
  const other = dietary.filter((d) => !(DIETARY_OPTIONS as ReadonlyArray<string>).includes(d)).join(", ")
  const current = guest.rsvpStatus === "Waitlisted" || guest.rsvpStatus === "Pending" ? "Accepted" : guest.rsvpStatus
  return (
    <PlainLayout site={site} title={`${event.name}: RSVP`}>
      {state.error ? <div class="flash error" role="alert">{state.error}</div> : null}
      {state.saved
        ? (
          <div class="flash success" role="status">
            Thank you, {guest.firstName}! Your answer is saved: {statusLabel[guest.rsvpStatus] ?? guest.rsvpStatus}.
          </div>
        )
        : null}
      {guest.rsvpStatus === "Pending"
        ? <div class="flash info" role="status">Your registration awaits the host's approval. If you can no longer come, say so below.</div>
        : guest.rsvpStatus === "Waitlisted"
        ? <div class="flash info" role="status">The event is full, so you are on the waitlist. When a place opens up, it goes to the guest who has waited longest, and you will be coming without answering again.</div>
        : full
        ? <div class="flash info" role="status">The event is full: if you answer yes, you will join the waitlist.</div>
        : null}
      <EventDetails event={event} calendar={state.calendar} />
      {state.ticket && guest.rsvpStatus === "Accepted" ? <Ticket ticket={state.ticket} /> : null}
      <form class="card" method="post" action={state.action}>
        <h2>Your answer</h2>
        <input type="hidden" name="csrf" value={state.csrf} />
        <fieldset>
          <legend>Will you attend, {guest.firstName}?</legend>
          <Choice value="Accepted" label="Yes, I will be there" current={current} />
          {guest.rsvpStatus === "Pending" ? null : <Choice value="Maybe" label="Maybe" current={current} />}
          <Choice value="Declined" label="No, I can't make it" current={current} />
        </fieldset>
        {questions.map((q, i) => (
          <div class="field">
            <label for={`answer${i}`}>{q.title}</label>
            {q.description ? <p class="hint" id={`answer${i}-hint`}>{q.description}</p> : null}
            <input
              type="text"
              id={`answer${i}`}
              name={`answer${i}`}
              maxLength={1000}
              value={answered.get(q.title) ?? ""}
              aria-describedby={q.description ? `answer${i}-hint` : undefined}
            />
          </div>
        ))}
        <fieldset>
          <legend>Dietary restrictions</legend>
          <div class="checks">
            {DIETARY_OPTIONS.map((option) => (
              <label><input type="checkbox" name="dietary" value={option} checked={dietary.includes(option)} /> {option}</label>
            ))}
          </div>
          <div class="field">
            <label for="dietaryOther">Anything else?</label>
            <input type="text" id="dietaryOther" name="dietaryOther" maxLength={200} value={other} />
          </div>
        </fieldset>
        <div class="field">
          <label for="note">A note for the host</label>
          <textarea id="note" name="note" maxLength={2000}>{guest.rsvpNote ?? ""}</textarea>
        </div>
        {guest.phone === null ? null : (
          <fieldset>
            <legend>Text messages</legend>
            <input type="hidden" name="smsConsentShown" value="1" />
            <label class="choice">
              <input type="checkbox" name="smsConsent" value="yes" checked={guest.smsConsent?.consent === "optedIn"} /> Text me updates about this event at {guest.phone}
            </label>
          </fieldset>
        )}
        <button type="submit" class="big">Send my answer</button>
      </form>
    </PlainLayout>
  )
}

export const GuestMessagePage = (props: { site: Site; title: string; message: string }) => (
  <PlainLayout site={props.site} title={props.title}>
    <div class="card message">
      <h1>{props.title}</h1>
      <p>{props.message}</p>
    </div>
  </PlainLayout>
)
