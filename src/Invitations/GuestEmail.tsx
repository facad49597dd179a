/**
 * The emails that tell a guest about their place at an event, beside the invitation: status
 * emails (StatusEmail.ts) and reminders (ReminderEmail.ts). One template, the invitation's look and
 * pieces (InvitationEmail.tsx): what happened in a sentence or two, the event's name, its date and
 * time in its own time zone (named), the place and the online links, the guest's personal RSVP
 * link, and, when they have a place, their ticket: its code as text and its QR code as an inline
 * image (`cid:ticket`, an attachment of the email). Plain text and HTML say the same.
 */
import { renderToString } from "preact-render-to-string"
import { localTimeOf, onlineLinesOf, placeOf } from "../Calendar/Ics.js"
import type { EventRow } from "../Events/EventRow.js"
import { EmailDocument, inline, Lines, oneLine, Row, type RenderedEmail, STYLES } from "./InvitationEmail.js"

/** The inline image of the ticket's QR code: its Content-ID. */
export const TICKET_CID = "ticket@convene"

export interface GuestEmailInput {
  readonly event: EventRow
  /** Who sends: the organization's name. */
  readonly organizer: string
  readonly firstName: string
  readonly subject: string
  /** What happened, one paragraph each; the first is the lead. */
  readonly news: ReadonlyArray<string>
  readonly rsvpLink: string | null
  /** The button's words ("View or change your answer"). */
  readonly linkLabel: string
  /** The ticket's code as people read it (`K7QXM-3M9PD`); the QR image is attached as `TICKET_CID`. */
  readonly ticket: string | null
}

const TICKET_STYLES = {
  ticket: `margin:0 0 20px;padding:16px;border:1px dashed #4338ca;border-radius:8px;text-align:center`,
  code: "margin:8px 0 0;font-family:ui-monospace,Menlo,Consolas,monospace;font-size:20px;letter-spacing:2px;font-weight:700",
  qr: "display:block;margin:0 auto;width:180px;height:180px"
} as const

/** A ticket in an email: its QR code (the inline image `TICKET_CID`, see GuestMail.ticketImage) and its code as text. */
export const TicketBlock = ({ ticket }: { ticket: string }) => (
  <div style={TICKET_STYLES.ticket}>
    <img src={`cid:${TICKET_CID}`} width={180} height={180} alt={`Ticket QR code ${ticket}`} style={TICKET_STYLES.qr} />
    <p style={TICKET_STYLES.code}>{ticket}</p>
    <p style={STYLES.note}>Your ticket: show this code at the door.</p>
  </div>
)

const GuestEmailBody = ({ input }: { input: GuestEmailInput }) => {
  const place = placeOf(input.event)
  const online = onlineLinesOf(input.event)
  return (
    <div style={STYLES.frame}>
      <div style={STYLES.card}>
        <p style={STYLES.p}>Hello {input.firstName},</p>
        {input.news.map((paragraph) => <p style={STYLES.p}>{paragraph}</p>)}
        <h1 style={STYLES.title}>{input.event.name}</h1>
        <table role="presentation" style={STYLES.facts}>
          <tbody>
            <Row look={inline} label="When">{localTimeOf(input.event)}</Row>
            {place === "" ? null : <Row look={inline} label="Where">{place}</Row>}
            {online.length === 0 ? null : <Row look={inline} label="Online"><Lines lines={online} /></Row>}
          </tbody>
        </table>
        {input.ticket === null ? null : <TicketBlock ticket={input.ticket} />}
        {input.rsvpLink === null ? null : (
          <>
            <p style={STYLES.actions}>
              <a href={input.rsvpLink} style={STYLES.button}>{input.linkLabel}</a>
            </p>
            <p style={STYLES.note}>
              If the button does not work, open this link: <a href={input.rsvpLink} style={STYLES.link}>{input.rsvpLink}</a>
            </p>
          </>
        )}
        <p style={STYLES.last}>
          The attached event.ics adds the event to your calendar.{input.rsvpLink === null ? "" : " This link is yours alone: please do not forward it."}
        </p>
      </div>
      <p style={STYLES.footer}>Sent for {input.organizer} by Convene</p>
    </div>
  )
}

/** The email for one guest: subject, plain text and HTML. */
export const renderGuestEmail = (input: GuestEmailInput): RenderedEmail => {
  const subject = oneLine(input.subject)
  const place = placeOf(input.event)
  const online = onlineLinesOf(input.event)
  const text = [
    `Hello ${input.firstName},`,
    "",
    ...input.news.flatMap((paragraph) => [paragraph, ""]),
    input.event.name,
    `When: ${localTimeOf(input.event)}`,
    ...(place === "" ? [] : [`Where: ${place}`]),
    ...online.map((line, i) => `${i === 0 ? "Online:" : "       "} ${line}`),
    ...(input.ticket === null ? [] : ["", `Your ticket: ${input.ticket} (show this code at the door)`]),
    ...(input.rsvpLink === null ? [] : ["", `${input.linkLabel}:`, input.rsvpLink]),
    "",
    "The attached event.ics adds the event to your calendar.",
    ...(input.rsvpLink === null ? [] : ["This link is yours alone: please do not forward it."]),
    "",
    `-- Sent for ${input.organizer} by Convene`
  ].join("\n") + "\n"
  const html = `<!doctype html>${
    renderToString(
      <EmailDocument subject={subject}>
        <GuestEmailBody input={input} />
      </EmailDocument>
    )
  }`
  return { subject, text, html }
}
