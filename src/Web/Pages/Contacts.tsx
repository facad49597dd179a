/**
 * Contacts: the list (search, pages, active or archived, CSV export and import) and one contact's
 * page with every field, its custom fields and the events it is on.
 */
import type { CustomFieldDefinition, Person, PersonDetail } from "../../Persons/Domain.js"
import { SMS_CONSENT_LABELS } from "../ContactForm.js"
import { count, plural } from "../Kit/Format.js"
import { Badge, Card, EmptyState, type FlashView, Layout, type Member, PageHeader, Pager, PostForm, type Site } from "../Html.js"
import { ContactsTabs, FIELD_TYPE_LABELS, OptionChip } from "./ContactsFields.js"

const contactPath = (personId: string) => `/app/contacts/${encodeURIComponent(personId)}`

const fullName = (p: { firstName: string; lastName: string }) => `${p.firstName} ${p.lastName}`.trim()

// --- the list ------------------------------------------------------------------------------------

export const ContactsListPage = (props: {
  site: Site
  member: Member
  flash: FlashView | null
  canWrite: boolean
  query: string
  /** How the query searched: an exact email, or a substring of the name. */
  searchedBy: "name" | "email" | undefined
  archived: boolean
  persons: ReadonlyArray<Person>
  total: number
  skip: number
  limit: number
}) => {
  const { site } = props
  const href = (skip: number) => {
    const params = new URLSearchParams()
    if (props.query !== "") params.set("q", props.query)
    if (props.archived) params.set("archived", "1")
    if (skip > 0) params.set("skip", String(skip))
    const query = params.toString()
    return site.href(`/app/contacts${query === "" ? "" : `?${query}`}`)
  }
  const exportHref = site.href(`/app/contacts/export${props.archived ? "?archived=true" : ""}`)
  const actions = (
    <>
      {props.canWrite ? <a class="button" href={site.href("/app/contacts/new")}>New contact</a> : null}
      {props.canWrite ? <a class="button secondary" href={site.href("/app/contacts/import")}>Import CSV</a> : null}
      <a class="button secondary" href={exportHref}>{props.archived ? "Export archived as CSV" : "Export CSV"}</a>
    </>
  )
  return (
    <Layout site={site} member={props.member} title={props.archived ? "Archived contacts" : "Contacts"} section="contacts" flash={props.flash}>
      <PageHeader title="Contacts" lead={`Everyone ${props.member.organization.name} invites or knows, with their event history.`} actions={actions} />
      <ContactsTabs site={site} current="contacts" />
      <form method="get" action={site.href("/app/contacts")} class="filters contact-filters" role="search" data-live="#contact-results">
        <div class="field">
          <label for="f-q">Search by name or exact email</label>
          <input id="f-q" name="q" type="search" value={props.query} maxLength={320} autocomplete="off" />
        </div>
        <div class="field check archived-filter">
          <input type="checkbox" id="f-archived" name="archived" value="1" checked={props.archived} />
          <label for="f-archived">Show archived contacts</label>
        </div>
        <button type="submit" class="secondary">Search</button>
      </form>
      <div id="contact-results" aria-live="polite">
        {props.persons.length === 0
          ? <ContactsEmpty {...props} />
          : (
            <>
              <p class="result-count">
                {props.archived ? "Archived: " : ""}
                {plural(props.total, props.archived ? "archived contact" : "contact")}
                {props.query === "" ? "" : props.searchedBy === "email" ? ` with the email “${props.query}”` : ` matching “${props.query}”`}
              </p>
              <div class="table-wrap">
                <table class="stack contacts-table">
                  <caption class="visually-hidden">{props.archived ? "Archived contacts" : "Contacts"}</caption>
                  <thead>
                    <tr>
                      <th scope="col">Name</th>
                      <th scope="col">Email</th>
                      <th scope="col">Phone</th>
                      <th scope="col">Company</th>
                    </tr>
                  </thead>
                  <tbody>
                    {props.persons.map((p) => (
                      <tr>
                        <td class="primary">
                          <a href={site.href(contactPath(p.personId))} class="contact-name">{fullName(p)}</a>
                          {p.archived ? <> <Badge tone="neutral">Archived</Badge></> : null}
                        </td>
                        <td data-label="Email" class="wrap-anywhere">{p.email}</td>
                        <td data-label="Phone">{p.phone ?? <span class="muted">–</span>}</td>
                        <td data-label="Company">
                          {p.company ?? <span class="muted">–</span>}
                          {p.position !== undefined ? <span class="sub">{p.position}</span> : null}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <Pager total={props.total} limit={props.limit} skip={props.skip} href={href} noun={props.archived ? "archived contacts" : "contacts"} />
            </>
          )}
      </div>
    </Layout>
  )
}

const ContactsEmpty = (props: { site: Site; query: string; archived: boolean; canWrite: boolean }) => {
  const { site } = props
  if (props.query !== "") {
    return (
      <EmptyState title={`No ${props.archived ? "archived " : ""}contacts match “${props.query}”`}>
        <p>Names match in part (“ada” finds Ada Lovelace); an email must be typed whole.</p>
        <p class="actions center">
          <a class="button secondary" href={site.href(props.archived ? "/app/contacts?archived=1" : "/app/contacts")}>Clear the search</a>
          {props.archived
            ? <a class="button secondary" href={site.href(`/app/contacts?${new URLSearchParams({ q: props.query })}`)}>Search active contacts</a>
            : <a class="button secondary" href={site.href(`/app/contacts?${new URLSearchParams({ q: props.query, archived: "1" })}`)}>Search archived contacts</a>}
        </p>
      </EmptyState>
    )
  }
  if (props.archived) {
    return (
      <EmptyState title="No archived contacts">
        <p>Archiving takes a contact out of the list and out of searches; it stays on the guest lists it is on.</p>
        <p class="actions center"><a class="button secondary" href={site.href("/app/contacts")}>See active contacts</a></p>
      </EmptyState>
    )
  }
  return (
    <EmptyState title="No contacts yet">
      {props.canWrite
        ? (
          <>
            <p>Add your first contact by hand, or import a CSV file exported from a spreadsheet, a mailing tool or another event service.</p>
            <p>Guests you add to an event's guest list become contacts too.</p>
            <p class="actions center">
              <a class="button" href={site.href("/app/contacts/new")}>New contact</a>
              <a class="button secondary" href={site.href("/app/contacts/import")}>Import CSV</a>
            </p>
          </>
        )
        : <p>When your team adds contacts or guests, they show up here.</p>}
    </EmptyState>
  )
}

// --- one contact ---------------------------------------------------------------------------------

/** One line of an RSVP history, as the page writes it. */
export interface HistoryView {
  readonly status: string
  readonly added: boolean
  readonly by: string
  readonly when: string
  readonly iso: string
}

/** An event the contact is on, with their answer and (for Team Members and above) payment. */
export interface ContactEventView {
  readonly eventId: string
  readonly name: string
  readonly when: string
  readonly iso: string
  readonly rsvpStatus: string
  readonly attendance: string | null
  /** Newest first. */
  readonly history: ReadonlyArray<HistoryView>
  /** Absent when the member may not see payments; null for an event without ticketing. */
  readonly payment?: {
    readonly status: string
    readonly amount: number | null
    readonly donation: number | null
  } | null
}

const RSVP_TONES: Readonly<Record<string, "neutral" | "good" | "warn" | "bad" | "info">> = {
  Accepted: "good",
  Declined: "bad",
  Maybe: "warn",
  Waitlisted: "info",
  Invited: "neutral"
}

export const RsvpStatus = ({ status }: { status: string }) => <Badge tone={RSVP_TONES[status] ?? "neutral"}>{status}</Badge>

const ATTENDANCE_LABELS: Readonly<Record<string, string>> = { Attended: "Checked in", "No Show": "No show" }

const Attendance = ({ status }: { status: string | null }) =>
  status === null
    ? <span class="muted">Not checked in</span>
    : <Badge tone={status === "Attended" ? "good" : "warn"}>{ATTENDANCE_LABELS[status] ?? status}</Badge>

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

const Detail = ({ label, value }: { label: string; value: string | null | undefined }) => (
  <>
    <dt>{label}</dt>
    <dd>{value === undefined || value === null || value === "" ? <span class="muted">Not set</span> : value}</dd>
  </>
)

export const ContactPage = (props: {
  site: Site
  member: Member
  flash: FlashView | null
  person: PersonDetail
  smsConsent: { readonly consent: keyof typeof SMS_CONSENT_LABELS; readonly source: string } | null
  definitions: ReadonlyArray<CustomFieldDefinition>
  events: ReadonlyArray<ContactEventView>
  canWrite: boolean
  seesPayments: boolean
  canDefineFields: boolean
}) => {
  const { person, site } = props
  const name = fullName(person)
  const path = contactPath(person.personId)
  const values = new Map(person.customFieldsDetailed.map((f) => [f.fieldId, f.value]))
  return (
    <Layout site={site} member={props.member} title={name} section="contacts" flash={props.flash}>
      <PageHeader
        back={{ href: site.href(person.archived ? "/app/contacts?archived=1" : "/app/contacts"), label: person.archived ? "Archived contacts" : "All contacts" }}
        title={name}
        lead={<>{person.email}{person.archived ? <> · <Badge tone="neutral">Archived</Badge></> : null}</>}
        actions={props.canWrite ? <a class="button" href={site.href(`${path}/edit`)} aria-label={`Edit ${name}`}>Edit</a> : null}
      />
      {person.archived
        ? (
          <div class="flash info archived-note">
            <p><strong>This contact is archived.</strong> It is left out of the contact list and searches, and stays on the guest lists it is on.</p>
            {props.canWrite
              ? (
                <PostForm action={site.href(`${path}/unarchive`)} csrf={props.member.csrf}>
                  <button type="submit" class="secondary">Unarchive {name}</button>
                </PostForm>
              )
              : null}
          </div>
        )
        : null}
      <div class="contact-columns">
        <Card title="Details" id="details">
          {person.profilePicture !== undefined
            ? <img class="avatar" src={person.profilePicture} alt={`Profile picture of ${name}`} width={72} height={72} referrerpolicy="no-referrer" />
            : null}
          <dl class="details">
            <Detail label="First name" value={person.firstName} />
            <Detail label="Last name" value={person.lastName} />
            <Detail label="Email" value={person.email} />
            <dt>Phone</dt>
            <dd>
              {person.phone === null ? <span class="muted">Not set</span> : person.phone}
              {person.phone !== null && props.smsConsent !== null
                ? <span class="sub">SMS: {SMS_CONSENT_LABELS[props.smsConsent.consent]}</span>
                : null}
            </dd>
            <Detail label="Company" value={person.company} />
            <Detail label="Position" value={person.position} />
            <Detail label="Birthday" value={person.birthday} />
            <Detail label="Address" value={person.address} />
            <Detail label="Apartment, suite or floor" value={person.apartment} />
            <Detail label="City" value={person.city} />
            <Detail label="State or province" value={person.state} />
            <Detail label="Postal code" value={person.postalCode} />
            <Detail label="Country" value={person.country} />
            <dt>Profile picture</dt>
            <dd>
              {person.profilePicture === undefined
                ? <span class="muted">Not set</span>
                : <a href={person.profilePicture} rel="noopener noreferrer nofollow" class="wrap-anywhere">{person.profilePicture}</a>}
            </dd>
            <dt>Note</dt>
            <dd class="prose">{person.contextNote === undefined ? <span class="muted">Not set</span> : person.contextNote}</dd>
            <dt>Contact ID</dt>
            <dd class="mono">{person.personId}</dd>
          </dl>
        </Card>
        <Card title="Custom fields" id="custom-fields">
          {props.definitions.length === 0
            ? (
              <p class="muted">
                Your organization has no custom fields yet.{" "}
                {props.canDefineFields ? <a href={site.href("/app/contacts/fields")}>Define one</a> : null}
              </p>
            )
            : (
              <dl class="details">
                {props.definitions.map((d) => {
                  const value = values.get(d.fieldId)
                  return (
                    <>
                      <dt>{d.fieldName} <span class="visually-hidden">({FIELD_TYPE_LABELS[d.fieldType]})</span></dt>
                      <dd>
                        {value === undefined || (Array.isArray(value) && value.length === 0)
                          ? <span class="muted">Not set</span>
                          : d.fieldType === "multiselect"
                          ? (
                            <ul class="option-list">
                              {d.options.filter((o) => (value as ReadonlyArray<string>).includes(o.value)).map((o) => <li><OptionChip option={o} /></li>)}
                            </ul>
                          )
                          : <span class={d.fieldType === "number" ? "mono" : "prose"}>{value as string}</span>}
                      </dd>
                    </>
                  )
                })}
              </dl>
            )}
          {props.canWrite && props.definitions.length > 0 ? <p><a href={site.href(`${path}/edit#custom`)}>Edit custom fields</a></p> : null}
        </Card>
      </div>

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
                        <a href={site.href(`/app/events/${encodeURIComponent(e.eventId)}/guests/${encodeURIComponent(person.personId)}`)} aria-label={`${e.name}: ${name} as a guest`}>{e.name}</a>
                        <span class="sub"><time datetime={e.iso}>{e.when}</time></span>
                      </td>
                      <td data-label="RSVP">
                        <div class="rsvp-cell">
                          <RsvpStatus status={e.rsvpStatus} />
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
                      <td data-label="Check-in"><Attendance status={e.attendance} /></td>
                      {props.seesPayments ? <td data-label="Payment"><Payment payment={e.payment ?? null} /></td> : null}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
      </Card>

      {props.canWrite && !person.archived
        ? (
          <Card title="Archive" id="archive">
            <p>Archiving takes {name} out of the contact list and searches; they stay on the guest lists they are on, and you can unarchive them later.</p>
            <PostForm action={site.href(`${path}/archive`)} csrf={props.member.csrf} confirm={`Archive ${name}? They leave the contact list; their guest lists keep them.`}>
              <button type="submit" class="danger">Archive {name}</button>
            </PostForm>
          </Card>
        )
        : null}
    </Layout>
  )
}
