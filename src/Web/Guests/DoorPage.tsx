/**
 * Door mode (CONTRACT §17): a page of its own, made for a phone held in one hand, for a member
 * (`/app/events/<id>/checkin`) and a door link (`/door/<token>`) alike. The search field first,
 * with the focus; what the last action did; the counts; the matching guests, one big button each;
 * then scanning. Without JavaScript every part is a form (a GET search, a POST per tap); door.js
 * takes over where it runs: the whole list searched as one types, check-ins without a page load,
 * the camera, the express mode and the offline queue.
 */
import type { ComponentChildren } from "preact"
import type { DoorCounts, DoorEntry } from "../../Guests/DoorRules.js"
import { Pager } from "../Kit/Components.js"
import { plural } from "../Kit/Format.js"
import { Csrf, PlainLayout, type Site } from "../Kit/Layout.js"
import { DOOR_PAGE_SIZE, doorQuery, type DoorState } from "./State.js"

/** What the last action did, as the page says it: done, waiting for a confirmation, or refused. */
export interface DoorResult {
  readonly tone: "done" | "confirm" | "refused"
  readonly message: string
  /** A guest just checked in: their undo. */
  readonly undo?: DoorEntry | undefined
  /** A guest to confirm: the tap again, confirmed (`ticket`: by their ticket's code). */
  readonly confirm?: { readonly guest: DoorEntry; readonly ticket?: string | undefined } | undefined
}

export interface DoorPageProps {
  readonly site: Site
  readonly eventName: string
  readonly when: string
  /** The door's service path (`/app/events/<id>/checkin`, `/door/<token>`): its forms post under it. */
  readonly base: string
  /** The session's CSRF token (a member's door); null for a door link. */
  readonly csrf: string | null
  /** Who the door is (a door link's name), else a way back to the event. */
  readonly back?: { readonly href: string; readonly label: string } | undefined
  readonly linkName?: string | undefined
  readonly canWrite: boolean
  readonly state: DoorState
  readonly guests: ReadonlyArray<DoorEntry>
  readonly total: number
  readonly counts: DoorCounts
  readonly result: DoorResult | null
  readonly ticket: { readonly value: string; readonly error?: string | undefined }
  /** Whether emails are shown and searched (not for a door link). */
  readonly withEmail: boolean
}

const TONE_LABEL = { done: "Done", confirm: "Needs confirmation", refused: "Refused" } as const
const TONE_ICON = { done: "✓", confirm: "?", refused: "✕" } as const

const DoorForm = (props: { site: Site; action: string; csrf: string | null; class?: string; children: ComponentChildren }) => (
  <form method="post" action={props.site.href(props.action)} class={props.class}>
    {props.csrf === null ? null : <Csrf token={props.csrf} />}
    {props.children}
  </form>
)

const StateFields = ({ state }: { state: DoorState }) => (
  <>
    {state.q !== "" ? <input type="hidden" name="q" value={state.q} /> : null}
    {state.skip > 0 ? <input type="hidden" name="skip" value={String(state.skip)} /> : null}
  </>
)

const guestPath = (base: string, id: string, rest = "") => `${base}/${encodeURIComponent(id)}${rest}`

const ResultBanner = ({ p, result }: { p: DoorPageProps; result: DoorResult }) => (
  <div class={`door-result ${result.tone}`}>
    <p class="door-result-text">
      <span class="door-result-label"><span aria-hidden="true">{TONE_ICON[result.tone]}</span> {TONE_LABEL[result.tone]}</span>
      <span>{result.message}</span>
    </p>
    {result.undo && p.canWrite
      ? (
        <DoorForm site={p.site} action={guestPath(p.base, result.undo.id, "/undo")} csrf={p.csrf}>
          <StateFields state={p.state} />
          <button type="submit" class="secondary" aria-label={`Undo check-in of ${result.undo.name}`}>Undo</button>
        </DoorForm>
      )
      : null}
    {result.confirm && p.canWrite
      ? (
        <div class="door-confirm">
          <DoorForm site={p.site} action={result.confirm.ticket ? `${p.base}/ticket` : guestPath(p.base, result.confirm.guest.id)} csrf={p.csrf}>
            <StateFields state={p.state} />
            {result.confirm.ticket ? <input type="hidden" name="ticket" value={result.confirm.ticket} /> : null}
            <input type="hidden" name="confirm" value="1" />
            <button type="submit" class="big">
              {result.confirm.guest.rsvp === "Accepted" ? `Check in ${result.confirm.guest.name}` : `Check in anyway (${result.confirm.guest.rsvp})`}
            </button>
          </DoorForm>
          <a class="button secondary" href={p.site.href(`${p.base}${doorQuery(p.state)}`)}>Cancel</a>
        </div>
      )
      : null}
  </div>
)

const GuestItem = ({ g, p }: { g: DoorEntry; p: DoorPageProps }) => (
  <li class={g.in ? "is-in" : undefined}>
    <div class="door-guest">
      <span class="name">{g.name}</span>
      {g.email !== undefined ? <span class="sub">{g.email}</span> : null}
      <span class="sub">RSVP {g.rsvp}{g.in ? " · Checked in" : ""}</span>
    </div>
    {!p.canWrite
      ? <span class="door-action muted">{g.in ? "Checked in" : "Not checked in"}</span>
      : g.in
      ? (
        <DoorForm site={p.site} action={guestPath(p.base, g.id, "/undo")} csrf={p.csrf} class="door-action">
          <StateFields state={p.state} />
          <span class="badge good">✓ Checked in</span>
          <button type="submit" class="secondary small" aria-label={`Undo check-in of ${g.name}`}>Undo</button>
        </DoorForm>
      )
      : (
        <DoorForm site={p.site} action={guestPath(p.base, g.id)} csrf={p.csrf} class="door-action">
          <StateFields state={p.state} />
          <button type="submit" class="big" aria-label={`Check in ${g.name}`}>Check in</button>
        </DoorForm>
      )}
  </li>
)

export const DoorPage = (p: DoorPageProps) => {
  const { counts, site, state } = p
  return (
    <PlainLayout site={site} title={`Check-in · ${p.eventName}`} scripts={["door.js"]} wide>
      <div
        class="door"
        id="door"
        data-base={site.href(p.base)}
        data-sw={site.href("/door-sw.js")}
        data-csrf={p.csrf ?? undefined}
        data-email={p.withEmail ? "1" : undefined}
        data-write={p.canWrite ? "1" : undefined}
        data-decoder={site.asset("jsQR.js")}
        data-kit={site.asset("door-kit.js")}
        data-camera={site.asset("door-camera.js")}
      >
        <header class="door-top">
          <h1>Check-in <span class="door-event">{p.eventName}</span></h1>
          <p class="muted">
            {p.when}
            {p.linkName ? <> · {p.linkName}</> : null}
            {p.back ? <> · <a href={site.href(p.back.href)}>{p.back.label}</a></> : null}
          </p>
        </header>

        <form class="door-search" method="get" action={site.href(p.base)} role="search" id="door-search">
          <label for="door-q">{p.withEmail ? "Find a guest: name, email or ticket code" : "Find a guest: name or ticket code"}</label>
          <div class="door-search-row">
            <input id="door-q" type="search" name="q" value={state.q} autofocus autocomplete="off" autocapitalize="off" spellcheck={false} maxLength={300} />
            <button type="submit" class="big">Search</button>
          </div>
        </form>

        <div id="door-result" role="status" aria-live="polite">
          {p.result ? <ResultBanner p={p} result={p.result} /> : null}
        </div>

        <section id="door-counts" class="door-counts" aria-label="Arrivals">
          <p class="counts" id="door-count-text">
            <strong>{counts.checkedIn}</strong> checked in of <strong>{counts.expected}</strong> expected
          </p>
          <p class="muted small-print" id="door-count-extra">
            Expected: guests who answered yes (Accepted).
            {counts.extra > 0 ? ` Also ${plural(counts.extra, "guest")} checked in without a yes.` : ""}
          </p>
        </section>

        <div id="door-queue" class="door-queue" hidden />

        {p.canWrite
          ? (
            <section id="ticket-scan" class="door-scan card" aria-labelledby="ticket-scan-title">
              <h2 id="ticket-scan-title">Scan a ticket</h2>
              <div class="scanner" data-scanner="" hidden>
                <div class="scanner-actions">
                  <button type="button" class="big" data-scanner-start="">Scan with the camera</button>
                  <button type="button" class="secondary" data-scanner-stop="" hidden>Stop the camera</button>
                </div>
                <p class="door-express">
                  <input type="checkbox" id="door-express" />
                  <label for="door-express">Express: check in at once on a valid scan</label>
                </p>
                <video data-scanner-video="" muted playsInline hidden aria-label="Camera view: hold a ticket's QR code in front of it" />
                <p class="scanner-status muted" data-scanner-status="" aria-live="polite" />
              </div>
              <DoorForm site={site} action={`${p.base}/ticket`} csrf={p.csrf} class="ticket-form">
                <StateFields state={state} />
                <label for="ticket-code">Ticket code</label>
                <p class="hint" id="ticket-code-hint">Under the guest's QR code, like K7QXM-3M9PD. A scanner that types the code works in either field.</p>
                <div class="door-search-row">
                  <input
                    id="ticket-code"
                    name="ticket"
                    type="text"
                    value={p.ticket.value}
                    autocomplete="off"
                    autocapitalize="characters"
                    spellcheck={false}
                    maxLength={300}
                    aria-describedby={p.ticket.error ? "ticket-code-hint ticket-code-error" : "ticket-code-hint"}
                    aria-invalid={p.ticket.error ? "true" : undefined}
                  />
                  <button type="submit" class="big" aria-label="Check in ticket">Check in</button>
                </div>
                {p.ticket.error ? <p class="error-text" id="ticket-code-error" role="alert">{p.ticket.error}</p> : null}
              </DoorForm>
              <div id="door-scans" hidden>
                <h3>Last scans</h3>
                <ol class="door-scans" />
              </div>
            </section>
          )
          : null}

        <div id="door-results">
          <p class="muted result-count" id="door-result-count">
            {state.q === "" ? `${plural(p.total, "guest")}, by name` : `${plural(p.total, "guest")} ${p.total === 1 ? "matches" : "match"} “${state.q}”`}
          </p>
          <ul class="door-list" id="door-list">
            {p.guests.map((g) => <GuestItem g={g} p={p} />)}
          </ul>
          <Pager total={p.total} limit={DOOR_PAGE_SIZE} skip={state.skip} noun="guests" href={(skip) => site.href(`${p.base}${doorQuery({ q: state.q, skip })}`)} />
        </div>

      </div>
    </PlainLayout>
  )
}
