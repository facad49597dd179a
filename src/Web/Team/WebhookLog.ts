/**
 * Where the member is in the webhooks' delivery log (its status filter and page), kept in every link
 * and in the redirect after a retry; read from the query or a form's hidden fields with a lenient
 * schema: anything else is the first page of all.
 */
import * as Schema from "effect/Schema"
import { type Delivery, DeliveryStatus } from "../../Webhooks/Domain.js"
import { Offset, orNone } from "../Kit/Form.js"

export const DELIVERY_STATUSES = DeliveryStatus.literals
export type DeliveryStatus = Delivery["status"]

export const DELIVERIES_PER_PAGE = 25

/** What each notification type tells, for the form and the tables. */
export const typeSummary: Readonly<Record<Delivery["type"], string>> = {
  EventPerson: "a guest's RSVP or attendance changed",
  GuestList: "guests were added, updated or removed",
  Event: "an event was edited"
}

export const LogState = Schema.Struct({ status: orNone(DeliveryStatus), skip: Offset })
export type LogState = typeof LogState.Type

/** `/app/team/webhooks?status=…&skip=…&delivery=…`, empty values left out. */
export const webhooksPath = (state: LogState, delivery?: string) => {
  const params = new URLSearchParams()
  if (state.status !== undefined) params.set("status", state.status)
  if (state.skip > 0) params.set("skip", String(state.skip))
  if (delivery !== undefined) params.set("delivery", delivery)
  const query = params.toString()
  return `/app/team/webhooks${query === "" ? "" : `?${query}`}`
}

/** A page of the delivery log. */
export interface LogView {
  readonly deliveries: ReadonlyArray<Delivery>
  readonly total: number
  readonly state: LogState
}
