/** The approval of a registration awaiting it (`Pending`): its buttons on the list's row and its form on the guest's page (ApprovalRoutes.ts). */
import type { Guest } from "../../Guests/Domain.js"
import type { EventSummary } from "../Events/Summary.js"
import { type Member, PostForm, type Site } from "../Kit/Layout.js"
import { guestPath, type ListState } from "./State.js"
import { StateFields } from "./Statuses.js"

/** The row's Approve and Decline, posted with the list's own form (its place kept, its selection ignored). */
export const ApprovalButtons = ({ event, guest, site }: { site: Site; event: EventSummary; guest: Guest }) => {
  const action = site.href(guestPath(event, guest.personId, "/approval"))
  return (
    <>
      <button type="submit" class="small" formaction={action} name="decision" value="approve" aria-label={`Approve ${guest.name}`}>
        Approve
      </button>
      <button type="submit" class="small secondary" formaction={action} name="decision" value="decline" aria-label={`Decline ${guest.name}`}>
        Decline
      </button>
    </>
  )
}

/** The guest page's approval: what it does, and its two buttons. */
export const ApprovalForm = (props: { site: Site; member: Member; event: EventSummary; guest: Guest; state: ListState }) => (
  <PostForm action={props.site.href(guestPath(props.event, props.guest.personId, "/approval"))} csrf={props.member.csrf} class="approval">
    <StateFields state={props.state} />
    <input type="hidden" name="from" value="guest" />
    <p id="approval-hint">
      {props.guest.firstName} registered and awaits your approval. Approved, they are coming while places remain, else on the waitlist.
    </p>
    <div class="choice-row">
      <button type="submit" name="decision" value="approve" aria-describedby="approval-hint">Approve</button>
      <button type="submit" name="decision" value="decline" class="secondary" aria-describedby="approval-hint">Decline</button>
    </div>
  </PostForm>
)
