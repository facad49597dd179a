/**
 * An event's door links on its page (CONTRACT §17), for its Admins: each link's name, end and
 * state with its revoke button, and the form that makes one (the link itself is shown once, in
 * the message after it is made).
 */
import type { DoorLink } from "../../Guests/DoorLinks.js"
import { Card } from "../Kit/Components.js"
import { dateTimeIn } from "../Kit/Format.js"
import { type Member, PostForm, type Site } from "../Kit/Layout.js"

const stateOf = (link: DoorLink) => (link.revokedAt !== null ? "Revoked" : link.live ? "Active" : "Expired")

export const DoorLinksCard = (props: { site: Site; member: Member; event: { readonly eventId: string; readonly timezone: string }; links: ReadonlyArray<DoorLink> }) => {
  const base = `/app/events/${encodeURIComponent(props.event.eventId)}/door-links`
  return (
    <Card title="Door links" id="door-links">
      <p class="muted">
        A door link opens check-in for this event without an account, for volunteers: it shows guests' names, RSVP status and attendance only, and
        checks them in. It ends at the end of the event's day unless you pick another last day, or when you revoke it.
      </p>
      {props.links.length === 0
        ? <p>No door links yet.</p>
        : (
          <ul class="plain-list door-links">
            {props.links.map((link) => (
              <li>
                <strong>{link.name}</strong> <span class="badge neutral">{stateOf(link)}</span>
                <span class="block muted">
                  {link.revokedAt !== null ? `Revoked ${dateTimeIn(link.revokedAt, props.event.timezone, false)}` : `${link.live ? "Ends" : "Ended"} ${dateTimeIn(link.expiresAt, props.event.timezone, false)}`}
                </span>
                {link.live
                  ? (
                    <PostForm action={props.site.href(`${base}/${encodeURIComponent(link.linkId)}/revoke`)} csrf={props.member.csrf}>
                      <button type="submit" class="secondary small" aria-label={`Revoke door link ${link.name}`}>Revoke</button>
                    </PostForm>
                  )
                  : null}
              </li>
            ))}
          </ul>
        )}
      <PostForm action={props.site.href(base)} csrf={props.member.csrf} class="door-link-form">
        <label for="door-link-name">Name of the new link</label>
        <input id="door-link-name" name="name" type="text" required maxLength={80} placeholder="North entrance" />
        <label for="door-link-last-day">Last day (optional, in the event's time zone)</label>
        <input id="door-link-last-day" name="lastDay" type="date" />
        <button type="submit">Make a door link</button>
      </PostForm>
    </Card>
  )
}
