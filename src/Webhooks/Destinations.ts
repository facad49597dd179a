/**
 * Where webhooks may go. Loopback, private, link-local and other non-public addresses are refused
 * unless `WEBHOOK_ALLOW_PRIVATE_DESTINATIONS` is set: at registration for literal addresses and
 * local names, and at delivery time on every address the name resolves to, inside the socket's own
 * lookup, so the address checked is the address connected to (no DNS rebinding in between).
 */
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from "node:dns"
import { BlockList, isIP } from "node:net"

const blocked = new BlockList()
for (const [network, prefix] of [
  ["0.0.0.0", 8], // "this" network
  ["10.0.0.0", 8], // private
  ["100.64.0.0", 10], // carrier-grade NAT
  ["127.0.0.0", 8], // loopback
  ["169.254.0.0", 16], // link-local
  ["172.16.0.0", 12], // private
  ["192.0.0.0", 24], // IETF protocol assignments
  ["192.168.0.0", 16], // private
  ["198.18.0.0", 15], // benchmarking
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4] // reserved, broadcast
] as const) blocked.addSubnet(network, prefix, "ipv4")
for (const [network, prefix] of [
  ["::", 128], // unspecified
  ["::1", 128], // loopback
  ["64:ff9b::", 96], // NAT64
  ["2001:db8::", 32], // documentation
  ["fc00::", 7], // unique local
  ["fe80::", 10], // link-local
  ["ff00::", 8] // multicast
] as const) blocked.addSubnet(network, prefix, "ipv6")

/** Whether an IP address is not a public unicast address. */
export const isNonPublicAddress = (address: string): boolean => {
  const family = isIP(address)
  if (family === 4) return blocked.check(address, "ipv4")
  // BlockList judges IPv4-mapped IPv6 addresses (::ffff:a.b.c.d, in any spelling) by the IPv4 rules
  if (family === 6) return blocked.check(address, "ipv6")
  return true
}

const hostOf = (url: URL) => url.hostname.replace(/^\[|\]$/g, "").replace(/\.$/, "")

/** Why a webhook URL is refused at registration, or undefined when it is acceptable. */
export const refusalOf = (raw: string, allowPrivate: boolean): string | undefined => {
  if (!URL.canParse(raw)) return "must be an absolute http(s) URL"
  const url = new URL(raw)
  if (url.protocol !== "http:" && url.protocol !== "https:") return "must be an http(s) URL"
  if (url.username !== "" || url.password !== "") return "must not carry credentials"
  if (allowPrivate) return undefined
  const host = hostOf(url).toLowerCase()
  if (host === "localhost" || host.endsWith(".localhost") || host.endsWith(".local") || host.endsWith(".internal")) {
    return "must not point to a local host name"
  }
  if (isIP(host) !== 0 && isNonPublicAddress(host)) return "must not point to a loopback, private or link-local address"
  return undefined
}

export class PrivateDestination extends Error {
  constructor(readonly hostname: string, readonly address: string) {
    super(`${hostname} resolves to ${address}, a loopback, private or link-local address`)
  }
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | Array<LookupAddress>, family?: number) => void

type Resolver = (
  hostname: string,
  options: LookupAllOptions,
  callback: (error: NodeJS.ErrnoException | null, addresses: Array<LookupAddress>) => void
) => void

/** A `lookup` for sockets that refuses non-public addresses unless they are allowed. */
export const guardedLookup = (allowPrivate: boolean, resolve: Resolver = dnsLookup) =>
(hostname: string, options: { all?: boolean; family?: number | string } & Record<string, unknown>, callback: LookupCallback) => {
  resolve(hostname, { ...options, all: true } as LookupAllOptions, (error, addresses) => {
    if (error) return callback(error, [])
    if (!allowPrivate) {
      const bad = addresses.find((a) => isNonPublicAddress(a.address))
      if (bad !== undefined) return callback(new PrivateDestination(hostname, bad.address) as NodeJS.ErrnoException, [])
    }
    if (options.all === true) return callback(null, addresses)
    const first = addresses[0]!
    callback(null, first.address, first.family)
  })
}
