/**
 * The dashboard's frame, rendered on the server with Preact (JSX to a string): the document, the
 * signed-in layout with its navigation and flash message, the plain layout of pages without one,
 * forms that post with the session's CSRF token, and the message page. Every value in a template is
 * escaped by the renderer; no template builds HTML by hand. Components hold no logic beyond loops
 * and conditionals: pages hand them what to show. Page parts: Components.tsx; form fields: Fields.tsx.
 */
import type { ComponentChildren, FormHTMLAttributes } from "preact"
import type { Role } from "../../Domain/Role.js"
import { AddressBanner } from "./AddressBanner.js"


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
  /** The public address's warning, for Admins reaching the dashboard under another host name (AddressBanner.tsx). */
  readonly addressWarning?: string | undefined
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
  /** Script modules of this page besides app.js (asset names, e.g. `door.js`). */
  scripts?: ReadonlyArray<string>
  children: ComponentChildren
}) => (
  <Document site={props.site} title={props.title} scripts={props.scripts}>
    <a class="skip" href="#main">Skip to content</a>
    <Header site={props.site} member={props.member} section={props.section} />
    <main id="main" class="content">
      <AddressBanner warning={props.member.addressWarning} />
      <FlashMessage flash={props.flash} />
      {props.children}
    </main>
  </Document>
)

/** A page without the dashboard's navigation: sign-in, errors for visitors, the guests' RSVP page. */
export const PlainLayout = (props: { site: Site; title: string; children: ComponentChildren; wide?: boolean; scripts?: ReadonlyArray<string> }) => (
  <Document site={props.site} title={props.title} bodyClass="plain" scripts={props.scripts}>
    <main id="main" class={props.wide ? "content" : "content narrow"}>{props.children}</main>
  </Document>
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
