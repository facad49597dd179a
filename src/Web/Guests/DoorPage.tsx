/**
 * Door mode (check-in, docs/integrators.md#calendar-files-and-tickets): made for a phone held in one hand. The last check-in and its
 * undo at the top, then the ticket scanner (the camera where the browser can read QR codes, and a
 * field for the typed code everywhere), one big search field, one big button per guest, and counts
 * that refresh on their own.
 */
import type { Guest } from "../../Guests/Domain.js"
import { type EventSummary, eventPath } from "../Events/Summary.js"
import { Badge, PageHeader, Pager } from "../Kit/Components.js"
import { count, plural } from "../Kit/Format.js"
import { type FlashView, Layout, type Member, PostForm, type Site } from "../Kit/Layout.js"
import { DOOR_PAGE_SIZE, doorQuery, type DoorState } from "./State.js"
import { RsvpBadge } from "./Statuses.js"

export interface DoorCounts {
  /** Every guest checked in (attendance Attended), whatever they answered. */
  readonly checkedIn: number
  /** Guests who answered yes (RSVP Accepted). */
  readonly expected: number
  /** Of those, how many are checked in. */
  readonly expectedIn: number
}

/** The message of the last write, with its undo while the guest is still checked in. */
export interface DoorBanner {
  readonly flash: FlashView
  readonly undo: { readonly personId: string; readonly name: string } | undefined
}

/** The ticket field as the page shows it. */
export interface TicketScan {
  /** What the field holds: the code opened from a QR code, or what was typed before an error. */
  readonly value: string
  /** Why the last code checked nobody in, shown next to the field. */
  readonly error?: string | undefined
  /** A code opened from a ticket's QR code (`?ticket=`): whose ticket it is, before checking in. */
  readonly preview?: { readonly tone: "success" | "error"; readonly message: string } | undefined
}

/**
 * "Scan a ticket": a typed code always (with JavaScript off, or a browser that cannot read QR
 * codes); the camera button is shown by scanner.js only where `BarcodeDetector` reads QR codes.
 */
const TicketScanner = (props: { site: Site; member: Member; event: EventSummary; state: DoorState; scan: TicketScan }) => {
  const { scan } = props
  const describedBy = ["ticket-code-hint", scan.error ? "ticket-code-error" : ""].filter((id) => id !== "").join(" ")
  return (
    <section id="ticket-scan" class="door-scan card" aria-labelledby="ticket-scan-title">
      <h2 id="ticket-scan-title">Scan a ticket</h2>
      <div class="scanner" data-scanner="" hidden>
        <div class="scanner-actions">
          <button type="button" class="big" data-scanner-start="">Scan with the camera</button>
          <button type="button" class="secondary" data-scanner-stop="" hidden>Stop the camera</button>
        </div>
        <video data-scanner-video="" muted playsInline hidden aria-label="Camera view: hold a ticket's QR code in front of it" />
        <p class="scanner-status muted" data-scanner-status="" aria-live="polite" />
      </div>
      {scan.preview
        ? <p class={`flash ${scan.preview.tone} ticket-preview`} role="status">{scan.preview.message}</p>
        : null}
      <PostForm action={props.site.href(eventPath(props.event, "/checkin/ticket"))} csrf={props.member.csrf} id="ticket-form" class="ticket-form">
        <DoorStateFields state={props.state} />
        <label for="ticket-code">Ticket code</label>
        <p class="hint" id="ticket-code-hint">
          Under the guest's QR code, like K7QXM-3M9PD. Or scan the QR code with a phone's camera app: it opens this page with the code filled in.
        </p>
        <div class="door-search-row">
          <input
            id="ticket-code"
            name="ticket"
            type="text"
            value={scan.value}
            autocomplete="off"
            autocapitalize="characters"
            spellcheck={false}
            maxLength={300}
            aria-describedby={describedBy}
            aria-invalid={scan.error ? "true" : undefined}
          />
          <button type="submit" class="big" aria-label="Check in ticket">Check in</button>
        </div>
        {scan.error ? <p class="error-text" id="ticket-code-error" role="alert">{scan.error}</p> : null}
      </PostForm>
    </section>
  )
}

const DoorStateFields = ({ state }: { state: DoorState }) => (
  <>
    {state.q !== "" ? <input type="hidden" name="q" value={state.q} /> : null}
    {state.skip > 0 ? <input type="hidden" name="skip" value={String(state.skip)} /> : null}
  </>
)

const UndoForm = (props: { site: Site; member: Member; event: EventSummary; state: DoorState; personId: string; name: string; big?: boolean }) => (
  <PostForm action={props.site.href(eventPath(props.event, `/checkin/${encodeURIComponent(props.personId)}/undo`))} csrf={props.member.csrf}>
    <DoorStateFields state={props.state} />
    <button type="submit" class={props.big ? "secondary" : "secondary small"} aria-label={`Undo check-in of ${props.name}`}>Undo</button>
  </PostForm>
)

export const CheckInPage = (props: {
  site: Site
  member: Member
  event: EventSummary
  state: DoorState
  guests: ReadonlyArray<Guest>
  total: number
  counts: DoorCounts
  banner: DoorBanner | null
  canWrite: boolean
  /** The ticket field; only for members who may check guests in. */
  scan: TicketScan
}) => {
  const { counts, event, site, state } = props
  const doorPath = eventPath(event, "/checkin")
  const stillToCome = Math.max(0, counts.expected - counts.expectedIn)
  const withoutYes = counts.checkedIn - counts.expectedIn
  return (
    <Layout site={site} member={props.member} title={`Check-in · ${event.name}`} section="events" scripts={props.canWrite ? ["scanner.js"] : []}>
      <div class="door">
        <PageHeader title="Check-in" lead={<>{event.name} · {event.when}</>} back={{ href: site.href(eventPath(event)), label: event.name }} />

        {props.banner
          ? (
            <div class={`flash ${props.banner.flash.kind} door-done`} role={props.banner.flash.kind === "error" ? "alert" : "status"}>
              <span>{props.banner.flash.message}</span>
              {props.banner.undo && props.canWrite
                ? <UndoForm site={site} member={props.member} event={event} state={state} personId={props.banner.undo.personId} name={props.banner.undo.name} big />
                : null}
            </div>
          )
          : null}

        {props.canWrite ? <TicketScanner site={site} member={props.member} event={event} state={state} scan={props.scan} /> : null}

        <section id="door-counts" class="door-counts" data-poll="10" aria-labelledby="door-counts-title">
          <h2 id="door-counts-title" class="visually-hidden">Arrivals</h2>
          <p class="counts">
            <span><strong>{count(counts.checkedIn)}</strong> checked in</span>
            <span>of <strong>{count(counts.expected)}</strong> expected</span>
          </p>
          {counts.expected > 0
            ? <progress max={counts.expected} value={Math.min(counts.expectedIn, counts.expected)} aria-label="Expected guests checked in" />
            : null}
          <p class="muted small-print">
            Expected: guests who answered yes (RSVP Accepted). {counts.expected > 0 ? `${plural(stillToCome, "of them is", "of them are")} not here yet.` : ""}
            {withoutYes > 0 ? ` ${plural(withoutYes, "guest")} checked in without a yes.` : ""}
          </p>
        </section>

        <form class="door-search" method="get" action={site.href(doorPath)} role="search" data-live="#door-results">
          <label for="door-q">Find a guest</label>
          <div class="door-search-row">
            <input id="door-q" type="search" name="q" value={state.q} placeholder="Name or email" autocomplete="off" maxLength={200} />
            <button type="submit" class="big">Search</button>
          </div>
        </form>

        <div id="door-results">
          {props.guests.length === 0
            ? (
              <div class="empty">
                <p class="empty-title">{state.q === "" ? "Nobody is on the guest list yet" : `Nobody on the list matches “${state.q}”`}</p>
                {state.q === ""
                  ? <p><a href={site.href(eventPath(event, "/guests"))}>Go to the guest list</a> to add guests.</p>
                  : <p>Check the spelling, or search by email. <a href={site.href(doorPath)}>Show everyone</a></p>}
              </div>
            )
            : (
              <>
                <p class="muted result-count">
                  {state.q === "" ? `${plural(props.total, "guest")}, by name` : `${plural(props.total, "guest")} ${props.total === 1 ? "matches" : "match"} “${state.q}”`}
                </p>
                <ul class="door-list">
                  {props.guests.map((g) => (
                    <li class={g.attendanceStatus === "Attended" ? "is-in" : undefined}>
                      <div class="door-guest">
                        <span class="name">{g.name}</span>
                        <span class="sub">{g.email}</span>
                        <span class="sub">RSVP <RsvpBadge status={g.rsvpStatus} />{g.attendanceStatus === "No Show" ? <> <Badge tone="warn">No show</Badge></> : null}</span>
                      </div>
                      {g.attendanceStatus === "Attended"
                        ? (
                          <div class="door-action">
                            <Badge tone="good">Checked in</Badge>
                            {props.canWrite
                              ? <UndoForm site={site} member={props.member} event={event} state={state} personId={g.personId} name={g.name} />
                              : null}
                          </div>
                        )
                        : props.canWrite
                        ? (
                          <PostForm action={site.href(eventPath(event, `/checkin/${encodeURIComponent(g.personId)}`))} csrf={props.member.csrf} class="door-action">
                            <DoorStateFields state={state} />
                            <button type="submit" class="big" aria-label={`Check in ${g.name}`}>Check in</button>
                          </PostForm>
                        )
                        : <span class="door-action muted">Not checked in</span>}
                    </li>
                  ))}
                </ul>
                <Pager
                  total={props.total}
                  limit={DOOR_PAGE_SIZE}
                  skip={state.skip}
                  noun="guests"
                  href={(skip) => site.href(`${doorPath}${doorQuery({ q: state.q, skip })}`)}
                />
              </>
            )}
        </div>
      </div>
    </Layout>
  )
}
