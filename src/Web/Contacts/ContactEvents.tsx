/** The events a contact is on: their answer with its history, their check-in and (for Team Members and above) payment. */
import type { HistoryLine } from "../Guests/History.js"
import { AttendanceBadge, RsvpBadge } from "../Guests/Statuses.js"
import { Badge, Card, EmptyState } from "../Kit/Components.js"
import { count } from "../Kit/Format.js"
import type { Site } from "../Kit/Layout.js"

/** An event the contact is on, with their answer and (for Team Members and above) payment. */
export interface ContactEventView {
  readonly eventId: string
  readonly name: string
  readonly when: string
  readonly iso: string
  readonly rsvpStatus: string
  readonly attendance: string | null
  /** Newest first. */
  readonly history: ReadonlyArray<HistoryLine>
  /** Absent when the member may not see payments; null for an event without ticketing. */
  readonly payment?: {
    readonly status: string
    readonly amount: number | null
    readonly donation: number | null
  } | null
}

const PAYMENT_LABELS: Readonly<Record<string, string>> = { none: "No purchase", paid: "Paid", refunded: "Refunded", chargeback: "Chargeback" }
const PAYMENT_TONES: Readonly<Record<string, "neutral" | "good" | "warn" | "bad" | "info">> = {
  none: "neutral",
  paid: "good",
  refunded: "warn",
  chargeback: "bad"
}

/** Cents as an amount (`1,234.50`); the API keeps no currency. */
const money = (cents: number) =>
  (cents / 100).toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 })

const Payment = ({ payment }: { payment: NonNullable<ContactEventView["payment"]> | null }) =>
  payment === null
    ? <span class="muted">No ticketing</span>
    : (
      <div class="payment-cell">
        <Badge tone={PAYMENT_TONES[payment.status] ?? "neutral"}>{PAYMENT_LABELS[payment.status] ?? payment.status}</Badge>
        {payment.amount !== null && payment.status !== "none" ? <span class="sub">Tickets {money(payment.amount)}</span> : null}
        {payment.donation !== null ? <span class="sub">Donation {money(payment.donation)}</span> : null}
      </div>
    )

export const ContactEvents = (props: {
  site: Site
  personId: string
  name: string
  events: ReadonlyArray<ContactEventView>
  seesPayments: boolean
}) => {
  const { name, site } = props
  return (
    <Card title={`Events (${count(props.events.length)})`} id="events">
      {props.events.length === 0
        ? (
          <EmptyState title="Not on any guest list yet">
            <p>Add {name} to an event from the event's guest list; their answers and check-ins then show up here.</p>
          </EmptyState>
        )
        : (
          <div class="table-wrap">
            <table class="stack">
              <caption class="visually-hidden">Events {name} is on, by date</caption>
              <thead>
                <tr>
                  <th scope="col">Event</th>
                  <th scope="col">RSVP</th>
                  <th scope="col">Check-in</th>
                  {props.seesPayments ? <th scope="col">Payment</th> : null}
                </tr>
              </thead>
              <tbody>
                {props.events.map((e) => (
                  <tr>
                    <td class="primary">
                      <a href={site.href(`/app/events/${encodeURIComponent(e.eventId)}/guests/${encodeURIComponent(props.personId)}`)} aria-label={`${e.name}: ${name} as a guest`}>{e.name}</a>
                      <span class="sub"><time datetime={e.iso}>{e.when}</time></span>
                    </td>
                    <td data-label="RSVP">
                      <div class="rsvp-cell">
                        <RsvpBadge status={e.rsvpStatus} />
                        {e.history.length > 0
                          ? (
                            <details class="rsvp-history">
                              <summary>History<span class="visually-hidden"> of {e.name}</span> ({e.history.length})</summary>
                              <ol class="history">
                                {e.history.map((h) => (
                                  <li>
                                    <strong>{h.status}</strong>
                                    {h.added ? " (added to the list)" : ""} · {h.by} · <time datetime={h.iso}>{h.when}</time>
                                  </li>
                                ))}
                              </ol>
                            </details>
                          )
                          : null}
                      </div>
                    </td>
                    <td data-label="Check-in"><AttendanceBadge status={e.attendance} /></td>
                    {props.seesPayments ? <td data-label="Payment"><Payment payment={e.payment ?? null} /></td> : null}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
    </Card>
  )
}
