/**
 * What a registration answers (CONTRACT §16, "The answer never tells whether an email was known").
 * With email configured, one page for every valid registration: "check your email". Without it, a
 * new guest sees their status and personal link; an address already on the list is told to use the
 * link from their invitation, with no link.
 */
import type { Site } from "../Kit/Layout.js"
import { confirmationHeadline } from "../../SelfRegistration/Domain.js"
import type { Registered } from "../../SelfRegistration/SelfRegistration.js"
import { PublicDocument } from "./Page.js"

export type Done =
  | { readonly _tag: "CheckEmail" }
  | { readonly _tag: "Received" }
  | Registered

const words = (done: Done, eventName: string): { title: string; lines: ReadonlyArray<string> } => {
  switch (done._tag) {
    case "CheckEmail":
      return {
        title: "Check your email",
        lines: [
          `Thank you for registering for ${eventName}. We are sending an email to the address you gave: it says where your registration stands and holds your personal link, where you can change your answer or cancel.`,
          "It should arrive within a few minutes. If it does not, look in your spam folder."
        ]
      }
    case "Received":
      return { title: "Registration received", lines: [`Thank you for registering for ${eventName}.`] }
    case "AlreadyOnList":
      return {
        title: "You're already on the guest list",
        lines: [
          `This email address is already on the guest list of ${eventName}, so nothing was changed.`,
          "To see or change your answer, use the personal link from your invitation or confirmation."
        ]
      }
    case "Added":
      return {
        title: confirmationHeadline(done.status),
        lines: [
          done.status === "Accepted"
            ? `You have a place at ${eventName}.`
            : done.status === "Waitlisted"
            ? `${eventName} is full, so you are on the waitlist. When a place opens up, it goes to the guest who has waited longest.`
            : `The organizer reviews registrations for ${eventName}. Your personal link shows when they have decided.`,
          "Keep your personal link: it is where you see your registration, change your answer or cancel. It is yours alone."
        ]
      }
  }
}

export const DonePage = (props: { site: Site; eventName: string; eventUrl: string; done: Done }) => {
  const { lines, title } = words(props.done, props.eventName)
  return (
    <PublicDocument site={props.site} title={title}>
      <div class="card message" role="status">
        <h1>{title}</h1>
        {lines.map((line) => <p>{line}</p>)}
        {props.done._tag === "Added"
          ? (
            <div class="field">
              <p><a class="button" href={props.done.rsvpLink}>Open my personal page</a></p>
              <label for="personal-link">Your personal link</label>
              <input id="personal-link" type="text" readonly value={props.done.rsvpLink} />
            </div>
          )
          : null}
        <p><a href={props.eventUrl}>Back to the event</a></p>
      </div>
    </PublicDocument>
  )
}
