/**
 * Who is on the other end of a request: the client IP that rate limits, sign-in lockouts and logs
 * use, and whether the client reached us over https.
 *
 * Behind a reverse proxy every request comes from the proxy's address, so every guest and every
 * sign-in would share one bucket. `X-Forwarded-For` and `X-Forwarded-Proto` name the real client,
 * but anyone can send them: they are believed only when the connection comes from an address in
 * `TRUSTED_PROXIES`. The client is then the right-most address of `X-Forwarded-For` that is not a
 * trusted proxy itself (each proxy appends the address it received from, so the addresses to the
 * left of it are whatever the client chose to send).
 */
import * as Option from "effect/Option"
import { isIP } from "node:net"
import { normalizeAddress, type TrustedProxies } from "../Config/TrustedProxies.js"

const isTrusted = (trusted: TrustedProxies, address: string): boolean => {
  // no proxies configured (the default): nothing to look up
  if (trusted.entries.length === 0) return false
  const family = isIP(address)
  return family !== 0 && trusted.list.check(address, family === 4 ? "ipv4" : "ipv6")
}

/** The values of a header that may be sent several times, or as one comma-separated list. */
const listOf = (header: string | ReadonlyArray<string> | undefined): Array<string> =>
  header === undefined
    ? []
    : (typeof header === "string" ? [header] : header).flatMap((value) => value.split(",")).map((v) => v.trim())

export interface Client {
  readonly ip: string
  /** The scheme the client used, as far as it is known: the socket's, or a trusted proxy's header. */
  readonly https: boolean
}

/**
 * The client of a request whose socket peer is `peer`. Without a trusted proxy in between, the
 * forwarding headers are ignored: a spoofed header from anyone else changes nothing.
 */
export const clientOf = (
  trusted: TrustedProxies,
  peer: Option.Option<string>,
  headers: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>,
  encrypted: boolean
): Client => {
  const socket = Option.match(peer, { onNone: () => "unknown", onSome: normalizeAddress })
  if (!isTrusted(trusted, socket)) return { ip: socket, https: encrypted }
  const forwarded = listOf(headers["x-forwarded-for"]).map(normalizeAddress)
  let ip = socket
  for (let i = forwarded.length - 1; i >= 0; i--) {
    const hop = forwarded[i]!
    // a malformed entry where the proxy should have written an address: stop at the last good hop
    if (isIP(hop) === 0) break
    ip = hop
    if (!isTrusted(trusted, hop)) break
  }
  // the proxy nearest to us sets the scheme it received; earlier values came from further away
  const proto = listOf(headers["x-forwarded-proto"]).at(-1)?.toLowerCase()
  return { ip, https: proto === undefined ? encrypted : proto === "https" }
}

/**
 * The rate-limit bucket of a client address: an IPv4 address is its own; an IPv6 address goes
 * with its /64, the block one home or server is given, which holds more addresses than anyone
 * could fill (a bucket per address would be a bucket per request for whoever owns one).
 */
export const rateKeyOf = (ip: string): string => {
  if (isIP(ip) !== 6) return `ip:${ip}`
  const address = ip.split("%")[0]!.toLowerCase()
  const [head = "", tail] = address.split("::")
  const groupsOf = (part: string | undefined) => (part === undefined || part === "" ? [] : part.split(":"))
  const width = (groups: ReadonlyArray<string>) => groups.reduce((n, g) => n + (g.includes(".") ? 2 : 1), 0)
  const left = groupsOf(head)
  const right = groupsOf(tail)
  const groups = tail === undefined ? left : [...left, ...Array<string>(8 - width(left) - width(right)).fill("0"), ...right]
  return `ip:${groups.slice(0, 4).map((g) => Number.parseInt(g, 16).toString(16)).join(":")}::/64`
}
