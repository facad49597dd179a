/**
 * An event's guest list (docs/integrators.md#the-dashboard): the counts by RSVP status, the filters
 * and search, the selection's actions, and the list itself (ListResults.tsx).
 */
import type { Guest } from "../../Guests/Domain.js"
import { type EventSummary, eventPath } from "../Events/Summary.js"
import { PageHeader } from "../Kit/Components.js"
import { Field } from "../Kit/Fields.js"
import { count } from "../Kit/Format.js"
import { type FlashView, Layout, type Member, PostForm, type Site } from "../Kit/Layout.js"
import { GuestResults } from "./ListResults.js"
import { ATTENDANCE_CHOICES, type GuestCounts, listQuery, type ListState, RSVP_STATUSES, type RsvpChoice } from "./State.js"
import { ATTENDANCE_LABELS } from "./Statuses.js"

const Stat = (props: { href: string; value: number; label: string }) => (
  <a class="stat" href={props.href}>
    <span class="value">{count(props.value)}</span>
    <span class="label">{props.label}</span>
  </a>
)

export const GuestListPage = (props: {
  site: Site
  member: Member
  flash: FlashView | null
  event: EventSummary
  counts: GuestCounts
  state: ListState
  guests: ReadonlyArray<Guest>
  total: number
  canWrite: boolean
}) => {
  const { event, site, state } = props
  const listPath = eventPath(event, "/guests")
  const byStatus = (status: RsvpChoice) => site.href(`${listPath}${listQuery({ status, attendance: undefined, q: "", skip: 0 })}`)
  const results = (
    <GuestResults
      site={site}
      event={event}
      state={state}
      guests={props.guests}
      total={props.total}
      listTotal={props.counts.total}
      canWrite={props.canWrite}
    />
  )
  return (
    <Layout site={site} member={props.member} title={`Guests · ${event.name}`} section="events" flash={props.flash}>
      <PageHeader
        title="Guest list"
        lead={<>{event.name} · {event.when}</>}
        back={{ href: site.href(eventPath(event)), label: event.name }}
        actions={
          <>
            {props.canWrite ? <a class="button" href={site.href(eventPath(event, "/guests/add"))}>Add guests</a> : null}
            {props.canWrite
              ? props.counts.total > 0
                // sends the guests ticked below (none: choose by status on the next page)
                ? <button type="submit" form="bulk" formaction={site.href(eventPath(event, "/invitations/new"))} class="secondary">Send invitations</button>
                : <a class="button secondary" href={site.href(eventPath(event, "/invitations/new"))}>Send invitations</a>
              : null}
            <a class="button secondary" href={site.href(eventPath(event, "/checkin"))}>Door check-in</a>
            {props.canWrite ? <a class="button secondary" href={site.href(eventPath(event, "/guests/import"))}>Import CSV</a> : null}
            <a class="button secondary" href={site.href(eventPath(event, "/guests/export"))}>Export CSV</a>
          </>
        }
      />
      <nav class="stats guest-stats" aria-label="Guests by RSVP status">
        <Stat href={site.href(listPath)} value={props.counts.total} label="All guests" />
        {RSVP_STATUSES.map((status) => <Stat href={byStatus(status)} value={props.counts.byStatus[status]} label={status} />)}
        <Stat
          href={site.href(`${listPath}${listQuery({ status: undefined, attendance: "Attended", q: "", skip: 0 })}`)}
          value={props.counts.attended}
          label="Checked in"
        />
      </nav>
      <form class="filters guest-filters" method="get" action={site.href(listPath)} role="search" data-live="#guest-results">
        <Field name="q" type="search" label="Search guests" placeholder="Name or email" value={state.q} maxLength={200} id="guest-q" />
        <div class="field small">
          <label for="f-status">RSVP status</label>
          <select id="f-status" name="status">
            <option value="" selected={state.status === undefined}>Any ({count(props.counts.total)})</option>
            {RSVP_STATUSES.map((s) => (
              <option value={s} selected={state.status === s}>{s} ({count(props.counts.byStatus[s])})</option>
            ))}
          </select>
        </div>
        <div class="field small">
          <label for="f-attendance">Attendance</label>
          <select id="f-attendance" name="attendance">
            <option value="" selected={state.attendance === undefined}>Any</option>
            {ATTENDANCE_CHOICES.map((a) => <option value={a} selected={state.attendance === a}>{ATTENDANCE_LABELS[a]}</option>)}
          </select>
        </div>
        <button type="submit" class="secondary">Search</button>
      </form>
      {props.canWrite && props.counts.total > 0
        ? (
          <PostForm action={site.href(eventPath(event, "/guests/bulk"))} csrf={props.member.csrf} id="bulk" class="bulk">
            <div class="bulk-bar">
              <span class="select-all">
                <input type="checkbox" id="select-all" data-select-all="personId" hidden />
                <label for="select-all" hidden>Select all on this page</label>
              </span>
              <label for="bulk-action">With the selected guests</label>
              <select id="bulk-action" name="action">
                <option value="">Choose…</option>
                <optgroup label="Set the RSVP status to">
                  {RSVP_STATUSES.map((s) => <option value={`rsvp:${s}`}>{s}</option>)}
                </optgroup>
                {props.counts.byStatus.Pending > 0
                  ? (
                    <optgroup label="Registrations awaiting approval">
                      <option value="approve">Approve (coming, or waitlisted when full)</option>
                      <option value="decline">Decline</option>
                    </optgroup>
                  )
                  : null}
                <optgroup label="Attendance">
                  <option value="attendance:Attended">Check in</option>
                  <option value="attendance:No Show">Mark as no-show</option>
                  <option value="attendance:none">Clear attendance (not checked in)</option>
                </optgroup>
                <optgroup label="Other">
                  <option value="remove">Remove from the guest list</option>
                </optgroup>
              </select>
              <button type="submit">Apply</button>
            </div>
            {results}
          </PostForm>
        )
        : results}
    </Layout>
  )
}
