/**
 * The RSVP page, server-rendered: plain HTML and CSS, no script, readable on a phone, labelled
 * for screen readers. Everything that comes from data is escaped.
 */
import type { EventRow } from "../Events/EventsRepo.js"
import { isHttpUrl } from "../Domain/Fields.js"
import { describeEvent } from "../Events/EventMapping.js"
import type { Invitation } from "./Rsvp.js"

export const DIETARY_OPTIONS = ["Vegetarian", "Vegan", "Gluten-free", "Dairy-free", "Nut allergy", "Halal", "Kosher"] as const

const escape = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;" })[c]!)

const STYLE = `
:root { color-scheme: light; --ink: #1d2330; --muted: #4f5868; --accent: #1f5fbf; --line: #d5dae3; --soft: #f4f6fa; }
* { box-sizing: border-box; }
body { margin: 0; font: 17px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: var(--soft); }
main { max-width: 40rem; margin: 0 auto; padding: 1rem; }
.card { background: #fff; border: 1px solid var(--line); border-radius: 12px; padding: 1.25rem; margin-bottom: 1rem; }
.hero { width: 100%; border-radius: 12px; display: block; margin-bottom: 1rem; max-height: 16rem; object-fit: cover; }
h1 { font-size: 1.6rem; line-height: 1.2; margin: 0 0 .5rem; }
h2 { font-size: 1.15rem; margin: 0 0 .75rem; }
.meta { color: var(--muted); margin: .25rem 0; }
.meta .label { display: inline-block; min-width: 4rem; font-weight: 600; color: var(--ink); }
.notice { border-radius: 8px; padding: .75rem 1rem; margin-bottom: 1rem; border: 1px solid; }
.notice.saved { background: #e8f5ec; border-color: #7bbf8e; }
.notice.waitlist { background: #fff6e0; border-color: #e0b34d; }
.notice.error { background: #fdecec; border-color: #d77; }
fieldset { border: 0; padding: 0; margin: 0 0 1.25rem; }
legend { font-weight: 600; margin-bottom: .5rem; }
label { display: block; }
.choice { display: flex; align-items: center; gap: .6rem; padding: .6rem .75rem; border: 1px solid var(--line); border-radius: 8px; margin-bottom: .5rem; cursor: pointer; }
.choice input { width: 1.2rem; height: 1.2rem; }
.field { margin-bottom: 1.25rem; }
.field > label { font-weight: 600; margin-bottom: .25rem; }
.hint { color: var(--muted); font-size: .95rem; margin: 0 0 .35rem; }
input[type=text], textarea { width: 100%; font: inherit; padding: .55rem .65rem; border: 1px solid #9aa3b2; border-radius: 8px; }
textarea { min-height: 5rem; }
.checks { display: grid; grid-template-columns: repeat(auto-fill, minmax(10rem, 1fr)); gap: .25rem .75rem; }
.checks label { display: flex; gap: .5rem; align-items: center; }
button { font: inherit; font-weight: 600; color: #fff; background: var(--accent); border: 0; border-radius: 8px; padding: .75rem 1.5rem; cursor: pointer; width: 100%; }
:focus-visible { outline: 3px solid #f2a900; outline-offset: 2px; }
a { color: var(--accent); }
`

const document = (title: string, body: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escape(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>`

/** When the event happens, in its own time zone. */
export const formatWhen = (event: EventRow) => {
  const date = new Date(event.primary_date)
  const formatted = new Intl.DateTimeFormat("en-US", {
    timeZone: event.timezone,
    weekday: "long",
    year: "numeric",
    month: "long",
    day: "numeric",
    hour: "numeric",
    minute: "2-digit",
    timeZoneName: "short"
  }).format(date)
  return `<time datetime="${escape(event.primary_date)}">${escape(formatted)}</time>`
}

const eventDetails = (event: EventRow) => {
  const images = JSON.parse(event.images) as Array<{ type: string; url: string }>
  // stored URLs are http(s) since they are validated; rows written before that are checked here too
  const header = [images.find((i) => i.type === "headerImg")?.url, event.featured_image]
    .find((url): url is string => typeof url === "string" && isHttpUrl(url))
  const place = [event.location_name, event.location_address, event.location_apartment, event.location_city, event.location_state,
    event.location_postal_code, event.location_country].filter((p): p is string => p !== null && p !== "")
  const online = (JSON.parse(event.virtual_locations) as Array<{ url: string | null; sourceType: string | null }>)
    .filter((v) => v.url !== null && isHttpUrl(v.url))
  const description = describeEvent(event.link_preview_description, event.rsvp_description)
  return [
    header ? `<img class="hero" src="${escape(header)}" alt="">` : "",
    `<h1>${escape(event.name)}</h1>`,
    `<p class="meta"><span class="label">When</span> ${formatWhen(event)}</p>`,
    place.length > 0 ? `<p class="meta"><span class="label">Where</span> ${escape(place.join(", "))}</p>` : "",
    online.map((v) =>
      `<p class="meta"><span class="label">Online</span> <a href="${escape(v.url!)}" rel="noopener noreferrer">Join online${
        v.sourceType ? ` (${escape(v.sourceType)})` : ""
      }</a></p>`
    ).join(""),
    description ? `<p>${escape(description)}</p>` : ""
  ].join("\n")
}

const statusLabel: Record<string, string> = {
  Accepted: "you are coming",
  Declined: "you can't come",
  Maybe: "you might come",
  Waitlisted: "you are on the waitlist",
  Invited: "no answer yet"
}

export interface PageState {
  readonly saved: boolean
  readonly error?: string | undefined
  readonly csrf: string
  readonly action: string
}

export const invitationPage = ({ event, full, guest }: Invitation, state: PageState) => {
  const questions = JSON.parse(event.rsvp_questions) as Array<{ title: string; description: string | null }>
  const answered = new Map(guest.rsvpQuestionResponses.map((r) => [r.title, r.answers.join(", ")]))
  const dietary = guest.dietaryRestrictions ?? []
  const other = dietary.filter((d) => !(DIETARY_OPTIONS as ReadonlyArray<string>).includes(d)).join(", ")
  const current = guest.rsvpStatus === "Waitlisted" ? "Accepted" : guest.rsvpStatus
  const choice = (value: string, label: string) =>
    `<label class="choice"><input type="radio" name="rsvpStatus" value="${value}" required${current === value ? " checked" : ""}> ${label}</label>`
  const notices = [
    state.error ? `<div class="notice error" role="alert">${escape(state.error)}</div>` : "",
    state.saved
      ? `<div class="notice saved" role="status">Thank you, ${escape(guest.firstName)}! Your answer is saved: ${statusLabel[guest.rsvpStatus] ?? escape(guest.rsvpStatus)}.</div>`
      : "",
    guest.rsvpStatus === "Waitlisted"
      ? `<div class="notice waitlist" role="status">The event is full, so you are on the waitlist. The host will let you know if a place opens up.</div>`
      : full
      ? `<div class="notice waitlist" role="status">The event is full: if you answer yes, you will join the waitlist.</div>`
      : ""
  ].join("\n")
  const form = `
<form class="card" method="post" action="${escape(state.action)}">
<h2>Your answer</h2>
<input type="hidden" name="csrf" value="${escape(state.csrf)}">
<fieldset>
<legend>Will you attend, ${escape(guest.firstName)}?</legend>
${choice("Accepted", "Yes, I will be there")}
${choice("Maybe", "Maybe")}
${choice("Declined", "No, I can't make it")}
</fieldset>
${
    questions.map((q, i) => `<div class="field">
<label for="answer${i}">${escape(q.title)}</label>
${q.description ? `<p class="hint" id="answer${i}-hint">${escape(q.description)}</p>` : ""}
<input type="text" id="answer${i}" name="answer${i}" maxlength="1000" value="${escape(answered.get(q.title) ?? "")}"${
      q.description ? ` aria-describedby="answer${i}-hint"` : ""
    }>
</div>`).join("\n")
  }
<fieldset>
<legend>Dietary restrictions</legend>
<div class="checks">
${
    DIETARY_OPTIONS.map((option) =>
      `<label><input type="checkbox" name="dietary" value="${option}"${dietary.includes(option) ? " checked" : ""}> ${option}</label>`
    ).join("\n")
  }
</div>
<div class="field" style="margin-top:.5rem"><label for="dietaryOther">Anything else?</label>
<input type="text" id="dietaryOther" name="dietaryOther" maxlength="200" value="${escape(other)}"></div>
</fieldset>
<div class="field">
<label for="note">A note for the host</label>
<textarea id="note" name="note" maxlength="2000">${escape(guest.rsvpNote ?? "")}</textarea>
</div>
${
    guest.phone === null ? "" : `<fieldset>
<legend>Text messages</legend>
<input type="hidden" name="smsConsentShown" value="1">
<label class="choice"><input type="checkbox" name="smsConsent" value="yes"${guest.smsConsent?.consent === "optedIn" ? " checked" : ""}> Text me updates about this event at ${
      escape(guest.phone)
    }</label>
</fieldset>`
  }
<button type="submit">Send my answer</button>
</form>`
  return document(`${event.name}: RSVP`, `${notices}\n<div class="card">\n${eventDetails(event)}\n</div>\n${form}`)
}

export const messagePage = (title: string, message: string) =>
  document(title, `<div class="card"><h1>${escape(title)}</h1><p>${escape(message)}</p></div>`)
