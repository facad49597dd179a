/**
 * What Convene says when `PUBLIC_BASE_URL` is unset (CONTRACT §16, "Public address"): every link
 * that leaves the server (RSVP links, emails, public pages, feeds) then points at
 * `http://localhost:<port>`, which works only on the machine itself. Start-up says so with how to
 * set it (src/Announce.ts), and the dashboard shows Admins the same while they reach it under
 * another host name (Web/Kit/AddressBanner.tsx).
 */

/** The start-up warning, for links that point at `guessed` (`http://localhost:3000`). */
export const unsetAddressWarning = (guessed: string): string =>
  `PUBLIC_BASE_URL is not set: links that leave Convene (RSVP links, emails, public event pages, calendar feeds) will point at ${guessed}, ` +
  "which works only on this computer. Set PUBLIC_BASE_URL to the address people reach Convene at " +
  "(for example PUBLIC_BASE_URL=https://events.example.org) and restart."

/** The host name of a `Host` header (`[::1]:3000` → `::1`, `Example.org:80` → `example.org`). */
export const hostNameOf = (host: string): string => {
  const value = host.trim().toLowerCase()
  if (value.startsWith("[")) return value.slice(1, value.indexOf("]") === -1 ? undefined : value.indexOf("]"))
  const colon = value.lastIndexOf(":")
  return colon === -1 ? value : value.slice(0, colon)
}

/** Whether a host name is this computer: `localhost` (and its subdomains), 127.0.0.0/8, `::1`. */
export const isLoopbackHost = (hostName: string): boolean =>
  hostName === "localhost" || hostName.endsWith(".localhost") || /^127(?:\.\d{1,3}){3}$/.test(hostName) || hostName === "::1" || hostName === ""

/**
 * The dashboard's warning for a request with `host` (its `Host` header), when the public address
 * is a guess: shown only when the request came under another host name than this computer's.
 */
export const dashboardAddressWarning = (
  origin: { readonly configured: boolean; readonly baseUrl: string },
  host: string | undefined
): string | undefined => {
  if (origin.configured || host === undefined || isLoopbackHost(hostNameOf(host))) return undefined
  return `PUBLIC_BASE_URL is not set, so links that leave Convene (RSVP links, emails, public event pages, calendar feeds) point at ` +
    `${origin.baseUrl}, which works only on the server itself, while you reached this dashboard at ${hostNameOf(host)}. ` +
    "Set PUBLIC_BASE_URL to the address people use and restart Convene."
}
