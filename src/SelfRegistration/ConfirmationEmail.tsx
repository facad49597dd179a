/**
 * The email a registration on the public page sends (CONTRACT §16, "Registration"): for a new
 * guest, a confirmation naming their status ("You're registered", "You're on the waitlist",
 * "Registration received, awaiting approval") with their personal RSVP link, where they change
 * their answer or cancel, and their ticket's code when they hold a place; for an address already on
 * the list, their link again. A plain-text and an HTML part saying the same, on the invitation's
 * template pieces (Invitations/InvitationEmail.tsx: escaped by Preact, inline styles); the event's
 * calendar file goes beside them.
 */
import { renderToString } from "preact-render-to-string"
import type { EventRow } from "../Events/EventRow.js"
import type { RsvpStatus } from "../Guests/Domain.js"
import { TicketBlock } from "../Invitations/GuestEmail.js"
import { EmailDocument, factsOf, inline, Lines, oneLine, paragraphs, type RenderedEmail, Row } from "../Invitations/InvitationEmail.js"
import { confirmationHeadline } from "./Domain.js"

export interface ConfirmationInput {
  readonly event: EventRow
  /** The organization's name. */
  readonly organizer: string
  readonly guest: { readonly firstName: string; readonly lastName: string }
  readonly status: RsvpStatus
  readonly rsvpLink: string
  /** The guest's ticket code as people read it, while they hold a place. */
  readonly ticket: string | undefined
  /** The address was already on the list: this only sends their link again. */
  readonly again: boolean
}

const lead = (input: ConfirmationInput): string =>
  input.again
    ? `You are already on the guest list of ${input.event.name}. Here is your personal link again.`
    : input.status === "Accepted"
    ? `You have a place at ${input.event.name}.`
    : input.status === "Waitlisted"
    ? `${input.event.name} is full, so you are on the waitlist. When a place opens up, it goes to the guest who has waited longest, and we will email you.`
    : input.status === "Pending"
    ? `${input.organizer} reviews registrations for ${input.event.name}: we will email you once they decide.`
    : `Your registration for ${input.event.name} is recorded.`

const subjectOf = (input: ConfirmationInput) =>
  oneLine(`${input.again ? "Your link" : confirmationHeadline(input.status)}: ${input.event.name}`)

const ConfirmationHtml = ({ input, subject }: { input: ConfirmationInput; subject: string }) => {
  // online links only to guests who hold a place
  const facts = factsOf({ event: input.event, organizer: input.organizer, guest: input.guest, rsvpLink: input.rsvpLink })
  const online = input.status === "Accepted" ? facts.online : []
  return (
    <EmailDocument subject={subject}>
      <div {...inline("frame")}>
        <div {...inline("card")}>
          <p {...inline("p")}>Hello {input.guest.firstName},</p>
          <h1 {...inline("title")}>{input.again ? "Your link" : confirmationHeadline(input.status)}</h1>
          <p {...inline("p")}>{lead(input)}</p>
          <table role="presentation" {...inline("facts")}>
            <tbody>
              <Row look={inline} label="Event">{input.event.name}</Row>
              <Row look={inline} label="When">{facts.when}</Row>
              {facts.place === "" ? null : <Row look={inline} label="Where">{facts.place}</Row>}
              {online.length === 0 ? null : <Row look={inline} label="Online"><Lines lines={online} /></Row>}
            </tbody>
          </table>
          {input.ticket === undefined ? null : <TicketBlock ticket={input.ticket} />}
          {facts.about === null ? null : (
            <div {...inline("about")}>
              {paragraphs(facts.about).map((p) => <p {...inline("aboutP")}><Lines lines={p} /></p>)}
            </div>
          )}
          <p {...inline("actions")}>
            <a href={input.rsvpLink} {...inline("button")}>See or change your registration</a>
          </p>
          <p {...inline("note")}>
            If the button does not work, open this link: <a href={input.rsvpLink} {...inline("link")}>{input.rsvpLink}</a>
          </p>
          <p {...inline("last")}>
            {input.ticket === undefined ? "" : "Show your ticket at the door: its QR code is above and on your page. "}
            If you cannot come, say so on your page to free your place. The attached invitation.ics adds the event to your
            calendar. This link is yours alone: please do not forward it.
          </p>
        </div>
        <p {...inline("footer")}>Sent for {input.organizer} by Convene, because this address was registered on the event's page.</p>
      </div>
    </EmailDocument>
  )
}

/** The email for one registrant: subject, plain text and HTML. */
export const renderConfirmation = (input: ConfirmationInput): RenderedEmail => {
  const subject = subjectOf(input)
  const facts = factsOf({ event: input.event, organizer: input.organizer, guest: input.guest, rsvpLink: input.rsvpLink })
  const online = input.status === "Accepted" ? facts.online : []
  const text = [
    `Hello ${input.guest.firstName},`,
    "",
    input.again ? "Your link" : confirmationHeadline(input.status),
    lead(input),
    "",
    `Event: ${input.event.name}`,
    `When: ${facts.when}`,
    ...(facts.place === "" ? [] : [`Where: ${facts.place}`]),
    ...online.map((line, i) => `${i === 0 ? "Online:" : "       "} ${line}`),
    ...(input.ticket === undefined ? [] : [`Your ticket: ${input.ticket} (its QR code is on your page and in this email's attachment: show it at the door)`]),
    ...(facts.about === null ? [] : ["", facts.about]),
    "",
    "See or change your registration (or cancel it) here:",
    input.rsvpLink,
    "",
    "The attached invitation.ics adds the event to your calendar.",
    "This link is yours alone: please do not forward it.",
    "",
    `-- Sent for ${input.organizer} by Convene, because this address was registered on the event's page.`
  ].join("\n") + "\n"
  return { subject, text, html: `<!doctype html>${renderToString(<ConfirmationHtml input={input} subject={subject} />)}` }
}
