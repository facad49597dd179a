/**
 * The invitation email (docs/integrators.md#email-invitations): a plain-text and an HTML part saying the same, rendered for
 * one guest. The HTML comes from Preact, like the dashboard's pages, so every value is escaped; its
 * styles are inline, since mail readers drop style sheets. Both parts carry the guest's personal
 * RSVP link, the event's name, its date and time in its own time zone (named), the place and the
 * online links, and the organizer's message when there is one. The calendar file goes beside them
 * as an attachment (Calendar/Ics.ts).
 */
import type { ComponentChildren } from "preact"
import { renderToString } from "preact-render-to-string"
import { trimToNull } from "../Domain/Fields.js"
import { localTimeOf, onlineLinesOf, placeOf } from "../Calendar/Ics.js"
import type { EventRow } from "../Events/EventRow.js"

export interface InvitationInput {
  readonly event: EventRow
  /** Who invites: the organization's name. */
  readonly organizer: string
  readonly guest: { readonly firstName: string; readonly lastName: string }
  readonly rsvpLink: string
  /** The organizer's subject; by default "Invitation: <event name>". */
  readonly subject?: string | undefined
  /** The organizer's own words, shown first. */
  readonly message?: string | undefined
}

export interface RenderedEmail {
  readonly subject: string
  readonly text: string
  readonly html: string
}

/** The subject when the organizer gives none. */
export const defaultSubject = (eventName: string) => `Invitation: ${eventName}`

/** Subjects are one line: line breaks (and other controls) become spaces. */
// eslint-disable-next-line no-control-regex
export const oneLine = (value: string) => value.replace(/[\u0000-\u001f\u007f]+/g, " ").trim()

export const paragraphs = (text: string): ReadonlyArray<ReadonlyArray<string>> =>
  text.replace(/\r\n?/g, "\n").split(/\n{2,}/).map((p) => p.split("\n")).filter((p) => p.join("").trim() !== "")

const colors = { text: "#1f2937", muted: "#6b7280", accent: "#4338ca", border: "#e5e7eb", panel: "#f9fafb" }

/**
 * How each part looks. In the email, inline styles (mail readers drop style sheets); in the
 * dashboard's preview, the same parts carry `em-<part>` classes that the dashboard's style sheet
 * gives the same look (its pages allow no inline style).
 */
export const STYLES = {
  body: `margin:0;padding:0;background:${colors.panel};color:${colors.text};font-family:-apple-system,Segoe UI,Roboto,Helvetica,Arial,sans-serif;font-size:16px;line-height:1.5`,
  frame: "max-width:560px;margin:0 auto;padding:24px 16px",
  card: `background:#ffffff;border:1px solid ${colors.border};border-radius:8px;padding:24px`,
  p: "margin:0 0 16px",
  lead: "margin:0 0 8px",
  title: "margin:0 0 16px;font-size:24px;line-height:1.25",
  facts: "border-collapse:collapse;margin:0 0 20px",
  label: `text-align:left;vertical-align:top;padding:6px 16px 6px 0;color:${colors.muted};font-weight:600;white-space:nowrap`,
  value: "padding:6px 0;vertical-align:top",
  about: `margin:0 0 20px;padding:12px 16px;background:${colors.panel};border-radius:6px`,
  aboutP: "margin:0 0 8px",
  actions: "margin:0 0 24px",
  button: `display:inline-block;background:${colors.accent};color:#ffffff;text-decoration:none;font-weight:600;padding:12px 20px;border-radius:6px`,
  note: `margin:0 0 8px;color:${colors.muted};font-size:14px`,
  link: `color:${colors.accent}`,
  last: `margin:0;color:${colors.muted};font-size:14px`,
  footer: `margin:16px 0 0;color:${colors.muted};font-size:12px;text-align:center`
} as const
export type Part = keyof typeof STYLES
export type Look = (part: Part) => { style: string } | { class: string }
export const inline: Look = (part) => ({ style: STYLES[part] })
const classes: Look = (part) => ({ class: `em-${part}` })

export const Lines = ({ lines }: { lines: ReadonlyArray<string> }) => (
  <>{lines.map((line, i) => (i === 0 ? line : <><br />{line}</>))}</>
)

export const Row = (props: { look: Look; label: string; children: ComponentChildren }) => (
  <tr>
    <th scope="row" {...props.look("label")}>{props.label}</th>
    <td {...props.look("value")}>{props.children}</td>
  </tr>
)

interface Facts {
  readonly when: string
  readonly place: string
  readonly online: ReadonlyArray<string>
  readonly about: string | null
}

const factsOf = (input: InvitationInput): Facts => {
  const about = input.event.rsvp_description ?? input.event.link_preview_description
  return {
    when: localTimeOf(input.event),
    place: placeOf(input.event),
    online: onlineLinesOf(input.event),
    about: trimToNull(about)
  }
}

/** What the email says, in either look: the body of the email, the content of the preview. */
const InvitationContent = (props: { input: InvitationInput; facts: Facts; look: Look; heading: "h1" | "h4" }) => {
  const { facts, input, look } = props
  const Heading = props.heading
  return (
    <div {...look("frame")}>
      <div {...look("card")}>
        <p {...look("p")}>Hello {input.guest.firstName},</p>
        {input.message === undefined || input.message.trim() === ""
          ? null
          : paragraphs(input.message).map((p) => <p {...look("p")}><Lines lines={p} /></p>)}
        <p {...look("lead")}>{input.organizer} invites you to</p>
        <Heading {...look("title")}>{input.event.name}</Heading>
        <table role="presentation" {...look("facts")}>
          <tbody>
            <Row look={look} label="When">{facts.when}</Row>
            {facts.place === "" ? null : <Row look={look} label="Where">{facts.place}</Row>}
            {facts.online.length === 0 ? null : <Row look={look} label="Online"><Lines lines={facts.online} /></Row>}
          </tbody>
        </table>
        {facts.about === null ? null : (
          <div {...look("about")}>
            {paragraphs(facts.about).map((p) => <p {...look("aboutP")}><Lines lines={p} /></p>)}
          </div>
        )}
        <p {...look("actions")}>
          <a href={input.rsvpLink} {...look("button")}>Reply to the invitation</a>
        </p>
        <p {...look("note")}>
          If the button does not work, open this link: <a href={input.rsvpLink} {...look("link")}>{input.rsvpLink}</a>
        </p>
        <p {...look("last")}>
          The attached invitation.ics adds the event to your calendar. This link is yours alone: please do not forward it.
        </p>
      </div>
      <p {...look("footer")}>Sent for {input.organizer} by Convene</p>
    </div>
  )
}

/** The document around every email's HTML part (invitations, status emails, reminders, confirmations). */
export const EmailDocument = (props: { subject: string; children: ComponentChildren }) => (
  <html lang="en">
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <title>{props.subject}</title>
    </head>
    <body {...inline("body")}>{props.children}</body>
  </html>
)

const InvitationHtml = (props: { input: InvitationInput; subject: string; facts: Facts }) => (
  <EmailDocument subject={props.subject}>
    <InvitationContent input={props.input} facts={props.facts} look={inline} heading="h1" />
  </EmailDocument>
)

/**
 * The HTML part as the dashboard previews it: the same template and words, styled by the
 * dashboard's own style sheet (`.email-preview .em-*`) instead of inline styles.
 */
export const InvitationPreview = ({ input }: { input: InvitationInput }) => (
  <div class="email-preview em-body">
    {/* inside a dashboard page, whose one h1 is its own */}
    <InvitationContent input={input} facts={factsOf(input)} look={classes} heading="h4" />
  </div>
)

/** The email for one guest: subject, plain text and HTML. */
export const renderInvitation = (input: InvitationInput): RenderedEmail => {
  const subject = oneLine(input.subject !== undefined && input.subject.trim() !== "" ? input.subject : defaultSubject(input.event.name))
  const facts = factsOf(input)
  const message = input.message === undefined || input.message.trim() === "" ? [] : [input.message.replace(/\r\n?/g, "\n").trim(), ""]
  const text = [
    `Hello ${input.guest.firstName},`,
    "",
    ...message,
    `${input.organizer} invites you to ${input.event.name}.`,
    "",
    `When: ${facts.when}`,
    ...(facts.place === "" ? [] : [`Where: ${facts.place}`]),
    ...(facts.online.length === 0 ? [] : facts.online.map((line, i) => `${i === 0 ? "Online:" : "       "} ${line}`)),
    ...(facts.about === null ? [] : ["", facts.about]),
    "",
    "Please reply to the invitation here:",
    input.rsvpLink,
    "",
    "The attached invitation.ics adds the event to your calendar.",
    "This link is yours alone: please do not forward it.",
    "",
    `-- Sent for ${input.organizer} by Convene`
  ].join("\n") + "\n"
  const html = `<!doctype html>${renderToString(<InvitationHtml input={input} subject={subject} facts={facts} />)}`
  return { subject, text, html }
}

/** The pieces other emails of an event share with the invitation (SelfRegistration/ConfirmationEmail.tsx). */
export { type Facts, factsOf }
