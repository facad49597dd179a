/** One guest of an event: their status and answers, the forms that change them, their invite link, their RSVP history. */
import type { Guest } from "../../Guests/Domain.js"
import { type EventSummary, eventPath } from "../Events/Summary.js"
import { Card, CopyField, PageHeader } from "../Kit/Components.js"
import { type FlashView, Layout, type Member, PostForm, type Site } from "../Kit/Layout.js"
import { ApprovalForm } from "./Approval.js"
import type { HistoryLine } from "./History.js"
import { ATTENDANCE_CHOICES, guestPath, listQuery, type ListState, RSVP_STATUSES } from "./State.js"
import { ATTENDANCE_LABELS, AttendanceBadge, RsvpBadge, StateFields } from "./Statuses.js"

export const GuestPage = (props: {
  site: Site
  member: Member
  flash: FlashView | null
  event: EventSummary
  guest: Guest
  history: ReadonlyArray<HistoryLine>
  state: ListState
  canWrite: boolean
}) => {
  const { event, guest, site, state } = props
  const back = site.href(eventPath(event, `/guests${listQuery(state)}`))
  const action = (rest: string) => site.href(guestPath(event, guest.personId, rest))
  const columns = Object.entries(guest.customColumns ?? {})
  return (
    <Layout site={site} member={props.member} title={`${guest.name} · ${event.name}`} section="events" flash={props.flash}>
      <PageHeader
        title={guest.name}
        lead={<>Guest of {event.name} · {event.when}</>}
        back={{ href: back, label: "Guest list" }}
      />
      <div class="grid guest-detail">
        <Card title="Status" id="status">
          <dl class="details">
            <dt>RSVP</dt>
            <dd><RsvpBadge status={guest.rsvpStatus} /></dd>
            <dt>Attendance</dt>
            <dd><AttendanceBadge status={guest.attendanceStatus} /></dd>
            <dt>Email</dt>
            <dd>{guest.email}</dd>
            {guest.phone !== null ? <><dt>Phone</dt><dd>{guest.phone}</dd></> : null}
            {guest.dietaryRestrictions !== null && guest.dietaryRestrictions.length > 0
              ? <><dt>Dietary needs</dt><dd>{guest.dietaryRestrictions.join(", ")}</dd></>
              : null}
            {guest.rsvpNote !== null ? <><dt>Note</dt><dd class="note">{guest.rsvpNote}</dd></> : null}
            {columns.map(([title, value]) => <><dt>{title}</dt><dd>{value === true ? "Yes" : value === false ? "No" : String(value)}</dd></>)}
            {guest.rsvpQuestionResponses.map((r) => <><dt>{r.title}</dt><dd>{r.answers.join(", ") || "—"}</dd></>)}
          </dl>
          {props.canWrite
            ? (
              <div class="guest-forms">
                {guest.rsvpStatus === "Pending" ? <ApprovalForm site={site} member={props.member} event={event} guest={guest} state={state} /> : null}
                <PostForm action={action("/rsvp")} csrf={props.member.csrf} class="inline-choice">
                  <StateFields state={state} />
                  <div class="field">
                    <label for="f-rsvpStatus">RSVP status</label>
                    <div class="choice-row">
                      <select id="f-rsvpStatus" name="rsvpStatus">
                        {RSVP_STATUSES.map((s) => <option value={s} selected={guest.rsvpStatus === s}>{s}</option>)}
                      </select>
                      <button type="submit" class="secondary">Save RSVP</button>
                    </div>
                  </div>
                </PostForm>
                <PostForm action={action("/attendance")} csrf={props.member.csrf} class="inline-choice">
                  <StateFields state={state} />
                  <input type="hidden" name="from" value="guest" />
                  <div class="field">
                    <label for="f-attendance-one">Attendance</label>
                    <div class="choice-row">
                      <select id="f-attendance-one" name="attendanceStatus">
                        {ATTENDANCE_CHOICES.map((a) => (
                          <option value={a} selected={(guest.attendanceStatus ?? "none") === a}>{ATTENDANCE_LABELS[a]}</option>
                        ))}
                      </select>
                      <button type="submit" class="secondary">Save attendance</button>
                    </div>
                  </div>
                </PostForm>
              </div>
            )
            : null}
        </Card>
        <Card title="Invite link" id="invite">
          {guest.rsvpLink !== null
            ? (
              <>
                <CopyField id="invite-link" label={`Personal RSVP link of ${guest.name}`} value={guest.rsvpLink} />
                <p class="hint">Whoever has this link can answer for {guest.name}: send it to them only.</p>
              </>
            )
            : event.slug === null
            ? <p>This event has no page address, so its guests have no invite links. An Admin can give the event an address on its form.</p>
            : props.canWrite
            ? (
              <PostForm action={action("/invite-link")} csrf={props.member.csrf}>
                <StateFields state={state} />
                <p>{guest.name} has no invite link yet.</p>
                <button type="submit" class="secondary">Create invite link</button>
              </PostForm>
            )
            : <p>{guest.name} has no invite link yet. A team member can create one.</p>}
        </Card>
      </div>
      <Card title="RSVP history" id="history">
        {props.history.length === 0
          ? <p class="muted">No RSVP history.</p>
          : (
            <>
            <p class="hint">Newest first; times in the event's time zone, {event.timezone}.</p>
            <div class="table-wrap">
              <table class="stack">
                <caption class="visually-hidden">RSVP history of {guest.name}, newest first</caption>
                <thead>
                  <tr><th scope="col">Status</th><th scope="col">By</th><th scope="col">When</th></tr>
                </thead>
                <tbody>
                  {props.history.map((h) => (
                    <tr>
                      <td class="primary"><RsvpBadge status={h.status} />{h.added ? <span class="sub">Added to the list</span> : null}</td>
                      <td data-label="By">{h.by}</td>
                      <td data-label="When"><time datetime={h.iso}>{h.when}</time></td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            </>
          )}
      </Card>
      {props.canWrite
        ? (
          <Card title="Remove from the list" id="remove">
            <p>{guest.name} is taken off this event's list; the contact stays. Added again later, they start as Invited.</p>
            <PostForm
              action={action("/remove")}
              csrf={props.member.csrf}
              confirm={`Remove ${guest.name} from the guest list of ${event.name}?`}
            >
              <StateFields state={state} />
              <button type="submit" class="danger">Remove from the guest list</button>
            </PostForm>
          </Card>
        )
        : null}
    </Layout>
  )
}
