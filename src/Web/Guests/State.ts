/**
 * Where the member is in an event's guest list and at its door: the filter, search and page, kept
 * in every link and form so that a write comes back to them. Read from the query or a form's hidden
 * fields with lenient schemas (Kit/Form.ts): anything else is the first page of all.
 */
import * as Schema from "effect/Schema"
import { RsvpStatus } from "../../Guests/Domain.js"
import { type EventSummary, eventPath } from "../Events/Summary.js"
import { Cut, orNone, Skip } from "../Kit/Form.js"

/** The RSVP statuses in the order the API lists them: every page shows them in this one order. */
export const RSVP_STATUSES = RsvpStatus.literals
export type RsvpChoice = (typeof RSVP_STATUSES)[number]

/** Attendance as the filters and forms name it: `none` is "not checked in" (null in the API). */
export const ATTENDANCE_CHOICES = ["Attended", "No Show", "none"] as const
export type AttendanceChoice = (typeof ATTENDANCE_CHOICES)[number]
export const Attendance = Schema.Literal(...ATTENDANCE_CHOICES)

/** The longest search read. */
const MAX_QUERY = 200

/** The guest list at a glance (`GuestLists.counts`). */
export interface GuestCounts {
  readonly byStatus: Readonly<Record<RsvpChoice, number>>
  readonly attended: number
  readonly total: number
}

/** Where the member is in the list: kept in every link and in the redirect after every write. */
export const ListState = Schema.Struct({
  status: orNone(RsvpStatus),
  attendance: orNone(Attendance),
  q: Cut(MAX_QUERY),
  skip: Skip
})
export type ListState = typeof ListState.Type

export const GUESTS_PER_PAGE = 50

/** `?status=…&q=…` for a list state (empty values left out), with `changes` applied. */
export const listQuery = (state: ListState, changes: Partial<ListState> = {}): string => {
  const next = { ...state, ...changes }
  const params = new URLSearchParams()
  if (next.status !== undefined) params.set("status", next.status)
  if (next.attendance !== undefined) params.set("attendance", next.attendance)
  if (next.q !== "") params.set("q", next.q)
  if (next.skip > 0) params.set("skip", String(next.skip))
  const query = params.toString()
  return query === "" ? "" : `?${query}`
}

/** The list state as a confirmation page's hidden fields (empty values left out). */
export const listFields = (state: ListState): ReadonlyArray<readonly [string, string]> =>
  Object.entries({ status: state.status ?? "", attendance: state.attendance ?? "", q: state.q, skip: state.skip > 0 ? String(state.skip) : "" })
    .filter(([, v]) => v !== "")

export const listPath = (event: EventSummary, state: ListState) => eventPath(event, `/guests${listQuery(state)}`)

export const guestPath = (event: EventSummary, personId: string, rest = "") =>
  eventPath(event, `/guests/${encodeURIComponent(personId)}${rest}`)

export const DOOR_PAGE_SIZE = 50

/** Where the door list is: kept in the redirect after a check-in or an undo. */
export const DoorState = Schema.Struct({ q: Cut(MAX_QUERY), skip: Skip })
export type DoorState = typeof DoorState.Type

/** `?q=…&skip=…` (empty values left out), with `extra` parameters after them. */
export const doorQuery = (state: DoorState, extra: Record<string, string> = {}): string => {
  const params = new URLSearchParams()
  if (state.q !== "") params.set("q", state.q)
  if (state.skip > 0) params.set("skip", String(state.skip))
  for (const [key, value] of Object.entries(extra)) params.set(key, value)
  const query = params.toString()
  return query === "" ? "" : `?${query}`
}

export const doorPath = (event: EventSummary, state: DoorState, extra: Record<string, string> = {}) =>
  eventPath(event, `/checkin${doorQuery(state, extra)}`)
