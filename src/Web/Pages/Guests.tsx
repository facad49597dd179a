/**
 * An event's guest list (docs/integrators.md#the-dashboard): the list with its filters, search and pages,
 * the selection's actions, adding guests, and one guest with their status history and invite link.
 */
import { type Guest, RsvpStatus } from "../../Guests/Domain.js"
import { count, plural } from "../Kit/Format.js"
import { Badge, Card, CopyField, EmptyState, ErrorSummary, Field, type FlashView, Layout, type Member, PageHeader, Pager, PostForm, type Site } from "../Html.js"

/** The RSVP statuses in the order the API lists them: every page shows them in this one order. */
export const RSVP_STATUSES = RsvpStatus.literals
export type RsvpChoice = (typeof RSVP_STATUSES)[number]

/** Attendance as the filters and forms name it: `none` is "not checked in" (null in the API). */
export const ATTENDANCE_CHOICES = ["Attended", "No Show", "none"] as const
export type AttendanceChoice = (typeof ATTENDANCE_CHOICES)[number]

/** Where the member is in the list: kept in every link and in the redirect after every write. */
export interface ListState {
  readonly status: RsvpChoice | undefined
  readonly attendance: AttendanceChoice | undefined
  readonly q: string
  readonly skip: number
}

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

/** The event as these pages show it. */
export interface EventSummary {
  readonly id: string
  readonly name: string
  /** Its date and time in its own time zone. */
  readonly when: string
  /** Its IANA time zone, in which every time of these pages is written. */
  readonly timezone: string
  readonly slug: string | null
}

export const eventPath = (event: EventSummary, rest = "") => `/app/events/${encodeURIComponent(event.id)}${rest}`
export const guestPath = (event: EventSummary, personId: string, rest = "") =>
  eventPath(event, `/guests/${encodeURIComponent(personId)}${rest}`)

const RSVP_TONES = { Invited: "neutral", Accepted: "good", Declined: "bad", Maybe: "warn", Waitlisted: "info" } as const

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

const ATTENDANCE_LABELS: Record<AttendanceChoice, string> = { Attended: "Checked in", "No Show": "No show", none: "Not checked in" }

/** The list state as hidden fields, so that a write comes back to the same filter, search and page. */
export const StateFields = ({ form, state }: { state: ListState; form?: string }) => (
  <>
    {state.status !== undefined ? <input type="hidden" name="status" value={state.status} form={form} /> : null}
    {state.attendance !== undefined ? <input type="hidden" name="attendance" value={state.attendance} form={form} /> : null}
    {state.q !== "" ? <input type="hidden" name="q" value={state.q} form={form} /> : null}
    {state.skip > 0 ? <input type="hidden" name="skip" value={String(state.skip)} form={form} /> : null}
  </>
)

export interface GuestCounts {
  readonly byStatus: Readonly<Record<RsvpChoice, number>>
  readonly attended: number
  readonly total: number
}

const Stat = (props: { href: string; value: number; label: string }) => (
  <a class="stat" href={props.href}>
    <span class="value">{count(props.value)}</span>
    <span class="label">{props.label}</span>
  </a>
)

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
                {props.canWrite
                  ? g.attendanceStatus === "Attended"
                    ? (
                      <button
                        type="submit"
                        class="small secondary"
                        formaction={props.site.href(guestPath(props.event, g.personId, "/attendance"))}
                        name="attendanceStatus"
                        value="none"
                        aria-label={`Undo check-in of ${g.name}`}
                      >
                        Undo check-in
                      </button>
                    )
                    : (
                      <button
                        type="submit"
                        class="small secondary"
                        formaction={props.site.href(guestPath(props.event, g.personId, "/attendance"))}
                        name="attendanceStatus"
                        value="Attended"
                        aria-label={`Check in ${g.name}`}
                      >
                        Check in
                      </button>
                    )
                  : null}
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
const GuestResults = (props: {
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

/** A contact found on the add page, and whether they are on the list already. */
export interface ContactChoice {
  readonly personId: string
  readonly name: string
  readonly email: string
  readonly onList: boolean
}

export interface NewGuestForm {
  readonly email: string
  readonly firstName: string
  readonly lastName: string
}

export type NewGuestErrors = Partial<Record<keyof NewGuestForm, string>>

export const AddGuestsPage = (props: {
  site: Site
  member: Member
  flash: FlashView | null
  event: EventSummary
  contact: string
  /** Contacts matching `contact`; undefined before a search. */
  contacts: { readonly found: ReadonlyArray<ContactChoice>; readonly total: number } | undefined
  newGuest?: NewGuestForm
  errors?: NewGuestErrors
}) => {
  const { event, site } = props
  const addPath = eventPath(event, "/guests/add")
  const errors = props.errors ?? {}
  const errorList = (Object.entries(errors) as Array<[keyof NewGuestForm, string]>).map(([field, message]) => ({ field, message }))
  return (
    <Layout site={site} member={props.member} title={`Add guests · ${event.name}`} section="events" flash={props.flash}>
      <PageHeader
        title="Add guests"
        lead={<>{event.name} · {event.when}</>}
        back={{ href: site.href(eventPath(event, "/guests")), label: "Guest list" }}
      />
      <div class="grid add-guests">
        <Card title="From your contacts" id="from-contacts">
          <form method="get" action={site.href(addPath)} role="search" data-live="#contact-results" class="filters">
            <Field
              name="contact"
              type="search"
              label="Search contacts"
              hint="A name, or a whole email address."
              value={props.contact}
              maxLength={200}
              id="contact-q"
            />
            <button type="submit" class="secondary">Search</button>
          </form>
          <div id="contact-results">
            {props.contacts === undefined
              ? <p class="muted">Search by name or email, tick the contacts to invite, then add them.</p>
              : props.contacts.found.length === 0
              ? (
                <EmptyState title="No contacts match">
                  <p>Nobody in your contacts matches “{props.contact}”. Add them as a new contact instead.</p>
                </EmptyState>
              )
              : (
                <PostForm action={site.href(addPath)} csrf={props.member.csrf}>
                  <input type="hidden" name="kind" value="contacts" />
                  <input type="hidden" name="contact" value={props.contact} />
                  <fieldset class="contact-choices">
                    <legend>Contacts matching “{props.contact}”</legend>
                    <ul class="list">
                      {props.contacts.found.map((c, i) => (
                        <li>
                          <span class="contact-choice">
                            <input type="checkbox" name="personId" value={c.personId} id={`contact-${i}`} disabled={c.onList} />
                            <label for={`contact-${i}`}>
                              <span class="title">{c.name}</span>
                              <span class="sub muted">{c.email}</span>
                            </label>
                          </span>
                          {c.onList ? <Badge tone="neutral">Already on the list</Badge> : null}
                        </li>
                      ))}
                    </ul>
                  </fieldset>
                  {props.contacts.total > props.contacts.found.length
                    ? <p class="muted">Showing {count(props.contacts.found.length)} of {count(props.contacts.total)} matches: type more to narrow them down.</p>
                    : null}
                  <div class="form-actions">
                    <button type="submit">Add selected contacts</button>
                  </div>
                </PostForm>
              )}
          </div>
        </Card>
        <Card title="A new contact" id="new-contact">
          <ErrorSummary errors={errorList} />
          <PostForm action={site.href(addPath)} csrf={props.member.csrf}>
            <input type="hidden" name="kind" value="new" />
            <input type="hidden" name="contact" value={props.contact} />
            <Field
              name="email"
              type="email"
              label="Email"
              required
              autocomplete="off"
              maxLength={320}
              hint="If a contact has this email already, that contact is added."
              value={props.newGuest?.email}
              error={errors.email}
            />
            <div class="grid-2">
              <Field name="firstName" label="First name" required maxLength={200} autocomplete="off" value={props.newGuest?.firstName} error={errors.firstName} />
              <Field name="lastName" label="Last name" required maxLength={200} autocomplete="off" value={props.newGuest?.lastName} error={errors.lastName} />
            </div>
            <div class="form-actions">
              <button type="submit">Add guest</button>
            </div>
          </PostForm>
        </Card>
      </div>
    </Layout>
  )
}

/** One entry of a guest's RSVP history, as the page writes it. */
export interface HistoryLine {
  readonly status: string
  readonly added: boolean
  readonly by: string
  readonly when: string
  readonly iso: string
}

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
            ? <p>This event has no public page (it has no slug), so its guests have no invite links. An Admin can give the event a slug on its page.</p>
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
