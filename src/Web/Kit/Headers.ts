/** The headers of every page (docs/integrators.md#the-dashboard), and the session's cookie. */

export const SESSION_COOKIE = "convene_session"

/** Headers on every page: no inline script or style, no framing, no sniffing, nothing kept. */
export const pageHeaders: Readonly<Record<string, string>> = {
  "content-security-policy": [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    // event images are the organizers' own URLs; everything of the dashboard itself is same-origin
    "img-src 'self' https: http: data:",
    "connect-src 'self'",
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'"
  ].join("; "),
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "same-origin",
  "cache-control": "no-store"
}
