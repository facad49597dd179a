/**
 * `TRUSTED_PROXIES`: the reverse proxies whose forwarding headers are believed (docs/integrators.md,
 * Http/ClientAddress.ts says how they are read). Parsed here, with the rest of the configuration.
 */
import { BlockList, isIP } from "node:net"

export interface TrustedProxies {
  readonly list: BlockList
  /** The configured entries, as written (for the start-up line and tests). */
  readonly entries: ReadonlyArray<string>
}

/** `::ffff:203.0.113.9` is the IPv4 address 203.0.113.9 on a dual-stack socket. */
export const normalizeAddress = (address: string): string => {
  const trimmed = address.trim().replace(/^\[|\]$/g, "")
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(trimmed)
  return mapped === null ? trimmed : mapped[1]!
}

/** Parses `TRUSTED_PROXIES`: comma-separated addresses or CIDR ranges; the first bad entry is named. */
export const parseTrustedProxies = (value: string): TrustedProxies | string => {
  const list = new BlockList()
  const entries = value.split(",").map((entry) => entry.trim()).filter((entry) => entry !== "")
  for (const entry of entries) {
    const [address = "", prefix, ...rest] = entry.split("/")
    const normalized = normalizeAddress(address)
    const family = isIP(normalized)
    const bits = prefix === undefined ? undefined : /^\d{1,3}$/.test(prefix) ? Number(prefix) : Number.NaN
    if (family === 0 || rest.length > 0 || (bits !== undefined && (Number.isNaN(bits) || bits > (family === 4 ? 32 : 128)))) {
      return entry
    }
    const type = family === 4 ? "ipv4" : "ipv6"
    if (bits === undefined) list.addAddress(normalized, type)
    else list.addSubnet(normalized, bits, type)
  }
  return { list, entries }
}

export const noTrustedProxies: TrustedProxies = { list: new BlockList(), entries: [] }
