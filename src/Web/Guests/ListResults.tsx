/** The part of the guest list that live search and filters swap: what matches, a page of it, with each guest's row. */
import type { Guest } from "../../Guests/Domain.js"
import { type EventSummary, eventPath } from "../Events/Summary.js"
import { EmptyState, Pager } from "../Kit/Components.js"
import { plural } from "../Kit/Format.js"
import type { Site } from "../Kit/Layout.js"
import { GUESTS_PER_PAGE, guestPath, listQuery, type ListState } from "./State.js"
import { AttendanceBadge, RsvpBadge, StateFields } from "./Statuses.js"
import { ApprovalButtons } from "./Approval.js"

/** A guest's check-in, or its undo, posted with the list's own form (its place kept). */
const CheckInButton = ({ event, guest, site }: { site: Site; event: EventSummary; guest: Guest }) => {
  const checkedIn = guest.attendanceStatus === "Attended"
  return (
    <button
      type="submit"
      class="small secondary"
      formaction={site.href(guestPath(event, guest.personId, "/attendance"))}
      name="attendanceStatus"
      value={checkedIn ? "none" : "Attended"}
      aria-label={checkedIn ? `Undo check-in of ${guest.name}` : `Check in ${guest.name}`}
    >
      {checkedIn ? "Undo check-in" : "Check in"}
    </button>
  )
}

const GuestRows = (props: { site: Site; event: EventSummary; guests: ReadonlyArray<Guest>; state: ListState; canWrite: boolean }) => (
  <div class="table-wrap">
    <table class="stack guest-table">
      <caption class="visually-hidden">Guests</caption>
      <thead>
        <tr>
          <th scope="col">Guest</th>
          <th scope="col">RSVP</th>
          <th scope="col">Attendance</th>
          <th scope="col"><span class="visually-hidden">Actions</span></th>
        </tr>
      </thead>
      <tbody>
        {props.guests.map((g, i) => {
          const detail = props.site.href(guestPath(props.event, g.personId, listQuery(props.state)))
          return (
            <tr>
              <td class="primary">
                <div class="guest-cell">
                  {props.canWrite
                    ? (
                      <span class="pick">
                        <input type="checkbox" name="personId" value={g.personId} id={`pick-${i}`} />
                        <label for={`pick-${i}`} class="visually-hidden">Select {g.name}</label>
                      </span>
                    )
                    : null}
                  <span class="guest-who">
                    <a href={detail} class="guest-name">{g.name}</a>
                    <span class="sub">{g.email}</span>
                  </span>
                </div>
              </td>
              <td data-label="RSVP"><RsvpBadge status={g.rsvpStatus} /></td>
              <td data-label="Attendance"><AttendanceBadge status={g.attendanceStatus} /></td>
              <td class="num row-actions">
                {props.canWrite && g.rsvpStatus === "Pending" ? <ApprovalButtons site={props.site} event={props.event} guest={g} /> : null}
                {props.canWrite ? <CheckInButton site={props.site} event={props.event} guest={g} /> : null}
                <a class="button small ghost" href={detail} aria-label={`Details of ${g.name}`}>Details</a>
              </td>
            </tr>
          )
        })}
      </tbody>
    </table>
  </div>
)

/** The part of the list page that live search and filters swap: what matches, a page of it. */
export const GuestResults = (props: {
  site: Site
  event: EventSummary
  state: ListState
  guests: ReadonlyArray<Guest>
  total: number
  listTotal: number
  canWrite: boolean
}) => {
  const listHref = (changes: Partial<ListState>) => props.site.href(eventPath(props.event, `/guests${listQuery(props.state, changes)}`))
  const filtered = props.state.status !== undefined || props.state.attendance !== undefined || props.state.q !== ""
  return (
    <div id="guest-results">
      {props.canWrite ? <StateFields state={props.state} /> : null}
      {props.listTotal === 0
        ? (
          <EmptyState title="No guests yet">
            {props.canWrite
              ? (
                <p>
                  Add guests from your contacts, or a new contact by email: <a href={props.site.href(eventPath(props.event, "/guests/add"))}>Add guests</a>.
                  {" "}Have them in a spreadsheet? <a href={props.site.href(eventPath(props.event, "/guests/import"))}>Import a CSV file</a>.
                </p>
              )
              : <p>A team member can add guests to this event.</p>}
          </EmptyState>
        )
        : props.guests.length === 0
        ? (
          <EmptyState title="No guests match">
            <p>
              {props.state.q !== "" ? <>Nobody on the list matches “{props.state.q}”. </> : null}
              <a href={props.site.href(eventPath(props.event, "/guests"))}>Show every guest</a>
            </p>
          </EmptyState>
        )
        : (
          <>
            <p class="muted result-count">
              {filtered ? `${plural(props.total, "guest")} ${props.total === 1 ? "matches" : "match"}` : `${plural(props.total, "guest")} on the list`}
            </p>
            <GuestRows site={props.site} event={props.event} guests={props.guests} state={props.state} canWrite={props.canWrite} />
            <Pager
              total={props.total}
              limit={GUESTS_PER_PAGE}
              skip={props.state.skip}
              noun="guests"
              href={(skip) => listHref({ skip })}
            />
          </>
        )}
    </div>
  )
}
