/** How a guest's RSVP status and attendance are shown, and the list's place as hidden fields of a form. */
import { Badge } from "../Kit/Components.js"
import type { AttendanceChoice, ListState, RsvpChoice } from "./State.js"

const RSVP_TONES = { Invited: "neutral", Accepted: "good", Declined: "bad", Maybe: "warn", Waitlisted: "info", Pending: "warn" } as const

/** The RSVP status, written out (colour only helps). */
export const RsvpBadge = ({ status }: { status: string }) => (
  <Badge tone={RSVP_TONES[status as RsvpChoice] ?? "neutral"}>{status}</Badge>
)

export const AttendanceBadge = ({ status }: { status: string | null }) =>
  status === "Attended"
    ? <Badge tone="good">Checked in</Badge>
    : status === "No Show"
    ? <Badge tone="warn">No show</Badge>
    : <span class="muted">Not checked in</span>

export const ATTENDANCE_LABELS: Record<AttendanceChoice, string> = { Attended: "Checked in", "No Show": "No show", none: "Not checked in" }

/** The list state as hidden fields, so that a write comes back to the same filter, search and page. */
export const StateFields = ({ form, state }: { state: ListState; form?: string }) => (
  <>
    {state.status !== undefined ? <input type="hidden" name="status" value={state.status} form={form} /> : null}
    {state.attendance !== undefined ? <input type="hidden" name="attendance" value={state.attendance} form={form} /> : null}
    {state.q !== "" ? <input type="hidden" name="q" value={state.q} form={form} /> : null}
    {state.skip > 0 ? <input type="hidden" name="skip" value={String(state.skip)} form={form} /> : null}
  </>
)
