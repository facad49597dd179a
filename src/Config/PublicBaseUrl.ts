/**
 * `PUBLIC_BASE_URL`: an http(s) address with an optional path prefix (`https://example.org/events`)
 * when a reverse proxy serves Convene under one. Checked at start: a query, a fragment or
 * credentials in it, or a prefix that begins like one of the service's own routes (which would make
 * `/events/...` ambiguous), stop start-up with one line.
 */

/**
 * The first path segments under which the service has routes of its own (`/person/:id`, `/app/...`).
 * A prefix may not begin with one of them, or `<prefix>/...` would be ambiguous. A prefix may be an
 * exact route (`/events`, the example README.md gives): that path alone stays the route, and every
 * path below it is the prefixed service.
 */
export const OWN_SEGMENTS: ReadonlyArray<string> = [
  "app", "rsvp", "person", "event", "webhook", "me", "member", "api-token", "custom-field", "changes", "docs"
]

/** The normalized base URL (no trailing slash), or why it cannot be used. */
export const parsePublicBaseUrl = (value: string): { readonly ok: string } | { readonly problem: string } => {
  const url = URL.canParse(value) ? new URL(value) : undefined
  if (url === undefined || (url.protocol !== "http:" && url.protocol !== "https:")) {
    return { problem: "must be an http(s) URL" }
  }
  if (url.username !== "" || url.password !== "") return { problem: "must not carry a user name or password" }
  if (url.search !== "" || url.hash !== "") return { problem: "must not have a query or a fragment" }
  const prefix = url.pathname.replace(/\/+$/, "")
  const first = prefix.split("/")[1] ?? ""
  if (OWN_SEGMENTS.includes(first.toLowerCase())) {
    return { problem: `must not have a path beginning with /${first}, one of the service's own routes` }
  }
  return { ok: `${url.origin}${prefix}` }
}
