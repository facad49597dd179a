/** The parts pages are made of: the page's header, cards, empty states, badges, pages of a list, copyable values. */
import type { ComponentChildren } from "preact"
import { recordTime } from "./Format.js"

/** The page's one `h1`, with its primary actions beside it. */
export const PageHeader = (props: { title: string; lead?: ComponentChildren; actions?: ComponentChildren; back?: { href: string; label: string } }) => (
  <div class="page-header">
    <div>
      {props.back ? <p class="back"><a href={props.back.href}><span aria-hidden="true">← </span>{props.back.label}</a></p> : null}
      <h1>{props.title}</h1>
      {props.lead ? <p class="lead">{props.lead}</p> : null}
    </div>
    {props.actions ? <div class="actions">{props.actions}</div> : null}
  </div>
)

export const Card = (props: { title?: string; children: ComponentChildren; id?: string; class?: string }) => (
  <section class={`card ${props.class ?? ""}`} aria-labelledby={props.title && props.id ? `${props.id}-title` : undefined} id={props.id}>
    {props.title ? <h2 id={props.id ? `${props.id}-title` : undefined}>{props.title}</h2> : null}
    {props.children}
  </section>
)

export const EmptyState = (props: { title: string; children?: ComponentChildren }) => (
  <div class="empty">
    <p class="empty-title">{props.title}</p>
    {props.children}
  </div>
)

/** Status shown as text (never by colour alone). */
export const Badge = (props: { tone: "neutral" | "good" | "warn" | "bad" | "info"; children: ComponentChildren }) => (
  <span class={`badge ${props.tone}`}>{props.children}</span>
)

/** Previous / next page links, with where the list stands. */
export const Pager = (props: { total: number; limit: number; skip: number; href: (skip: number) => string; noun: string }) => {
  if (props.total <= props.limit && props.skip === 0) return null
  const from = props.total === 0 ? 0 : props.skip + 1
  const to = Math.min(props.total, props.skip + props.limit)
  return (
    <nav class="pager" aria-label="Pages">
      <span>{from}–{to} of {props.total} {props.noun}</span>
      {props.skip > 0 ? <a class="button small secondary" href={props.href(Math.max(0, props.skip - props.limit))} rel="prev">Previous</a> : null}
      {to < props.total ? <a class="button small secondary" href={props.href(props.skip + props.limit)} rel="next">Next</a> : null}
    </nav>
  )
}

/** A read-only value with a button that copies it (the button appears when scripts run). */
export const CopyField = (props: { id: string; label: string; value: string }) => (
  <div class="field copy">
    <label for={props.id}>{props.label}</label>
    <div class="copy-row">
      <input id={props.id} type="text" readOnly value={props.value} class="mono" />
      <button type="button" class="button secondary" data-copy={props.id} hidden>Copy</button>
    </div>
  </div>
)

/** A record's time (created, last used), written in UTC; the page's script shows it in the reader's zone. */
export const RecordTime = ({ iso }: { iso: string }) => <time datetime={iso} data-local="">{recordTime(iso)}</time>

/** An event's month and day in its own zone, as the lists show them beside its name (decorative: the date is said in words too). */
export const DayBadge = ({ iso, timeZone }: { iso: string; timeZone: string }) => {
  const parts = new Intl.DateTimeFormat("en-US", { timeZone, month: "short", day: "numeric" }).formatToParts(new Date(iso))
  return (
    <div class="event-day" aria-hidden="true">
      <span class="month">{parts.find((p) => p.type === "month")?.value ?? ""}</span>
      <span class="day">{parts.find((p) => p.type === "day")?.value ?? ""}</span>
    </div>
  )
}
