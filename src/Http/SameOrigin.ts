/**
 * Whether a form post comes from the service's own pages (docs/integrators.md#the-dashboard): its `Origin` header, or
 * its `Referer` when a browser sends no `Origin`, names `PUBLIC_BASE_URL`'s origin, or the host the
 * request was sent to (a browser sets `Host` from the address it opened, so a page of another site
 * cannot match it; this keeps forms working when the service is reached by another name than its
 * public one, e.g. `127.0.0.1` on the machine itself). A missing, `null` or malformed header is
 * refused. This is the second check: every form also carries a CSRF token bound to the session.
 */
import type * as Headers from "@effect/platform/Headers"

const originOf = (value: string | undefined): URL | undefined => {
  if (value === undefined || value === "" || value === "null" || !URL.canParse(value)) return undefined
  const url = new URL(value)
  return url.protocol === "http:" || url.protocol === "https:" ? url : undefined
}

export const fromOwnPages = (headers: Headers.Headers, webOrigin: string): boolean => {
  const sent = originOf(headers["origin"]) ?? (headers["origin"] === undefined ? originOf(headers["referer"]) : undefined)
  if (sent === undefined) return false
  if (sent.origin === webOrigin) return true
  const host = headers["host"]
  return host !== undefined && sent.host.toLowerCase() === host.toLowerCase()
}
