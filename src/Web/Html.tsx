/**
 * The dashboard's building blocks, rendered on the server with Preact (JSX to a string). Every
 * value in a template is escaped by the renderer; no template builds HTML by hand. Components hold
 * no logic beyond loops and conditionals: pages hand them what to show.
 */
import type { ComponentChildren, FormHTMLAttributes, HTMLInputTypeAttribute, InputHTMLAttributes } from "preact"
import type { Role } from "../Domain/Role.js"

/** What every page knows about where it is served: the path prefix, assets, and the form token. */
export interface Site {
  /** A service path (`/app/events`) with PUBLIC_BASE_URL's path prefix. */
  readonly href: (path: string) => string
  /** The URL of a bundled asset (`app.css`), with its content hash. */
  readonly asset: (name: string) => string
}

export interface Member {
  readonly name: string
  readonly email: string
  readonly csrf: string
  readonly role: Role
  readonly organization: { readonly slug: string; readonly name: string }
  readonly organizations: ReadonlyArray<{ readonly slug: string; readonly name: string; readonly role: Role }>
}

export interface FlashView {
  readonly kind: "success" | "error"
  readonly message: string
}

export type Section = "events" | "contacts" | "team" | "account"

const Document = (props: { site: Site; title: string; children: ComponentChildren; bodyClass?: string; scripts?: ReadonlyArray<string> | undefined }) => (
  <html lang="en">
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <meta name="robots" content="noindex" />
      <title>{`${props.title} · Convene`}</title>
      <link rel="icon" href={props.site.asset("favicon.svg")} type="image/svg+xml" />
      <link rel="stylesheet" href={props.site.asset("app.css")} />
      <script type="module" src={props.site.asset("app.js")} />
      {props.scripts?.map((name) => <script type="module" src={props.site.asset(name)} />)}
    </head>
    <body class={props.bodyClass}>
      {props.children}
      {/* where scripts announce what they did ("Copied"), apart from the flash message */}
      <div id="announcer" class="visually-hidden" aria-live="polite" />
    </body>
  </html>
)

/** The hidden field every dashboard form carries: the session's CSRF token (docs/integrators.md#the-dashboard). */
export const Csrf = ({ token }: { token: string }) => <input type="hidden" name="_csrf" value={token} />

/** A form that changes something: POST, with the session's CSRF token. */
export const PostForm = (
  props: { action: string; csrf: string; children: ComponentChildren; confirm?: string } & Omit<FormHTMLAttributes, "action" | "method">
) => {
  const { action, children, confirm, csrf, ...rest } = props
  return (
    <form method="post" action={action} data-confirm={confirm} {...rest}>
      <Csrf token={csrf} />
      {children}
    </form>
  )
}

const NavLink = (props: { href: string; current: boolean; children: ComponentChildren }) => (
  <li>
    <a href={props.href} aria-current={props.current ? "page" : undefined}>{props.children}</a>
  </li>
)

const Header = ({ member, section, site }: { site: Site; member: Member; section: Section | undefined }) => (
  <header class="topbar">
    <div class="topbar-inner">
      <a class="brand" href={site.href("/app")}>Convene</a>
      <PostForm action={site.href("/app/organization")} csrf={member.csrf} class="org-switch" data-autosubmit="">
        <label for="org-switch">Organization</label>
        <select id="org-switch" name="slug">
          {member.organizations.map((o) => (
            <option value={o.slug} selected={o.slug === member.organization.slug}>{o.name}</option>
          ))}
        </select>
        <button type="submit" class="button small secondary" data-hide-with-js="">Switch</button>
      </PostForm>
      <nav aria-label="Main">
        <ul>
          <NavLink href={site.href("/app/events")} current={section === "events"}>Events</NavLink>
          <NavLink href={site.href("/app/contacts")} current={section === "contacts"}>Contacts</NavLink>
          {member.role === "Super Admin" || member.role === "Admin"
            ? <NavLink href={site.href("/app/team")} current={section === "team"}>Team settings</NavLink>
            : null}
          <NavLink href={site.href("/app/account")} current={section === "account"}>Account</NavLink>
        </ul>
      </nav>
      <PostForm action={site.href("/app/logout")} csrf={member.csrf} class="signout">
        <span class="who" title={member.email}>{member.name} · {member.role}</span>
        <button type="submit" class="button small secondary">Sign out</button>
      </PostForm>
    </div>
  </header>
)

export const FlashMessage = ({ flash }: { flash: FlashView | null | undefined }) =>
  flash ? (
    <div class={`flash ${flash.kind}`} role={flash.kind === "error" ? "alert" : "status"}>
      {flash.message}
    </div>
  ) : <div class="flash-slot" role="status" />

/** A page of the signed-in dashboard: header with navigation, the flash message, the content. */
export const Layout = (props: {
  site: Site
  member: Member
  title: string
  section?: Section
  flash?: FlashView | null
  /** Script modules of this page besides app.js (asset names, e.g. `scanner.js`). */
  scripts?: ReadonlyArray<string>
  children: ComponentChildren
}) => (
  <Document site={props.site} title={props.title} scripts={props.scripts}>
    <a class="skip" href="#main">Skip to content</a>
    <Header site={props.site} member={props.member} section={props.section} />
    <main id="main" class="content">
      <FlashMessage flash={props.flash} />
      {props.children}
    </main>
  </Document>
)

/** A page without the dashboard's navigation: sign-in, errors for visitors, the guests' RSVP page. */
export const PlainLayout = (props: { site: Site; title: string; children: ComponentChildren; wide?: boolean }) => (
  <Document site={props.site} title={props.title} bodyClass="plain">
    <main id="main" class={props.wide ? "content" : "content narrow"}>{props.children}</main>
  </Document>
)

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

export interface FieldProps {
  readonly name: string
  readonly label: string
  readonly value?: string | null | undefined
  readonly type?: HTMLInputTypeAttribute
  readonly hint?: string | undefined
  readonly error?: string | undefined
  readonly required?: boolean
  readonly autocomplete?: string
  readonly placeholder?: string
  readonly maxLength?: number
  readonly min?: string | number
  readonly step?: string
  readonly inputMode?: "text" | "email" | "numeric" | "decimal" | "tel" | "url" | "search"
  readonly id?: string
}

const describedBy = (id: string, hint: unknown, error: unknown) =>
  [hint ? `${id}-hint` : "", error ? `${id}-error` : ""].filter((s) => s !== "").join(" ") || undefined

/** A labelled input with its hint and error, announced to screen readers. */
export const Field = (props: FieldProps) => {
  const id = props.id ?? `f-${props.name}`
  return (
    <div class={`field${props.error ? " has-error" : ""}`}>
      <label for={id}>
        {props.label}
        {props.required ? <span class="req" aria-hidden="true"> *</span> : null}
      </label>
      {props.hint ? <p class="hint" id={`${id}-hint`}>{props.hint}</p> : null}
      <input
        {...({
          id,
          name: props.name,
          type: props.type ?? "text",
          value: props.value ?? "",
          required: props.required,
          autocomplete: props.autocomplete,
          placeholder: props.placeholder,
          maxLength: props.maxLength,
          min: props.min,
          step: props.step,
          inputMode: props.inputMode,
          "aria-invalid": props.error ? "true" : undefined,
          "aria-describedby": describedBy(id, props.hint, props.error)
          // Preact types each input type apart; this one component serves them all
        } as InputHTMLAttributes)}
      />
      {props.error ? <p class="error-text" id={`${id}-error`}>{props.error}</p> : null}
    </div>
  )
}

export const TextArea = (props: Omit<FieldProps, "type"> & { rows?: number }) => {
  const id = props.id ?? `f-${props.name}`
  return (
    <div class={`field${props.error ? " has-error" : ""}`}>
      <label for={id}>{props.label}</label>
      {props.hint ? <p class="hint" id={`${id}-hint`}>{props.hint}</p> : null}
      <textarea
        id={id}
        name={props.name}
        rows={props.rows ?? 4}
        maxLength={props.maxLength}
        aria-invalid={props.error ? "true" : undefined}
        aria-describedby={describedBy(id, props.hint, props.error)}
      >
        {props.value ?? ""}
      </textarea>
      {props.error ? <p class="error-text" id={`${id}-error`}>{props.error}</p> : null}
    </div>
  )
}

export const Select = (props: {
  name: string
  label: string
  options: ReadonlyArray<{ readonly value: string; readonly label: string }>
  value?: string | null | undefined
  hint?: string
  error?: string | undefined
  id?: string
}) => {
  const id = props.id ?? `f-${props.name}`
  return (
    <div class={`field${props.error ? " has-error" : ""}`}>
      <label for={id}>{props.label}</label>
      {props.hint ? <p class="hint" id={`${id}-hint`}>{props.hint}</p> : null}
      <select id={id} name={props.name} aria-describedby={describedBy(id, props.hint, props.error)} aria-invalid={props.error ? "true" : undefined}>
        {props.options.map((o) => <option value={o.value} selected={o.value === props.value}>{o.label}</option>)}
      </select>
      {props.error ? <p class="error-text" id={`${id}-error`}>{props.error}</p> : null}
    </div>
  )
}

export const Checkbox = (props: { name: string; label: string; checked: boolean; hint?: string; value?: string; id?: string }) => {
  const id = props.id ?? `f-${props.name}`
  return (
    <div class="field check">
      <input type="checkbox" id={id} name={props.name} value={props.value ?? "on"} checked={props.checked} aria-describedby={props.hint ? `${id}-hint` : undefined} />
      <label for={id}>{props.label}</label>
      {props.hint ? <p class="hint" id={`${id}-hint`}>{props.hint}</p> : null}
    </div>
  )
}

/** A summary of what was wrong with a submitted form, linking to each field. */
export const ErrorSummary = ({ errors }: { errors: ReadonlyArray<{ readonly field: string; readonly message: string }> }) =>
  errors.length === 0 ? null : (
    <div class="flash error" role="alert">
      <p><strong>Please correct {errors.length === 1 ? "this" : `these ${errors.length}`}:</strong></p>
      <ul>
        {errors.map((e) => <li><a href={`#f-${e.field}`}>{e.message}</a></li>)}
      </ul>
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

/** A simple full page for messages: not found, forbidden, expired forms. */
export const MessagePage = (props: { site: Site; member: Member | undefined; title: string; message: string; back?: { href: string; label: string } }) => {
  const body = (
    <div class="card message">
      <h1>{props.title}</h1>
      <p>{props.message}</p>
      {props.back ? <p><a class="button" href={props.back.href}>{props.back.label}</a></p> : null}
    </div>
  )
  return props.member
    ? <Layout site={props.site} member={props.member} title={props.title}>{body}</Layout>
    : <PlainLayout site={props.site} title={props.title}>{body}</PlainLayout>
}
