/**
 * Door mode (CONTRACT §11 "Check-in"): made for a phone held in one hand. One big search field,
 * one big button per guest, the last check-in undoable from the top of the page, and counts that
 * refresh on their own.
 */
import type { Guest } from "../../Guests/Domain.js"
import { count, plural } from "../Format.js"
import { Badge, type FlashView, Layout, type Member, PageHeader, Pager, PostForm, type Site } from "../Html.js"
import { type EventSummary, eventPath, RsvpBadge } from "./Guests.js"

export const DOOR_PAGE_SIZE = 50

/** Where the door list is: kept in the redirect after a check-in or an undo. */
export interface DoorState {
  readonly q: string
  readonly skip: number
}

/** `?q=…&skip=…` (empty values left out), with `extra` parameters after them. */
export const doorQuery = (state: DoorState, extra: Record<string, string> = {}): string => {
  const params = new URLSearchParams()
  if (state.q !== "") params.set("q", state.q)
  if (state.skip > 0) params.set("skip", String(state.skip))
  for (const [key, value] of Object.entries(extra)) params.set(key, value)
  const query = params.toString()
  return query === "" ? "" : `?${query}`
}

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
}) => {
  const { counts, event, site, state } = props
  const doorPath = eventPath(event, "/checkin")
  const stillToCome = Math.max(0, counts.expected - counts.expectedIn)
  const withoutYes = counts.checkedIn - counts.expectedIn
  return (
    <Layout site={site} member={props.member} title={`Check-in · ${event.name}`} section="events">
      <div class="door">
        <PageHeader title="Check-in" lead={<>{event.name} · {event.when}</>} back={{ href: site.href(eventPath(event)), label: event.name }} />

        {/* Ticket scanning (camera and typed code, CONTRACT §14) comes here, above the search. */}
        <div id="ticket-scan" class="door-scan" />

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
