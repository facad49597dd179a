/**
 * The organization's events as the feeds give them (CONTRACT §16): the JSON for embedding on the
 * organization's own site, and what both feeds answer with: a validator (`ETag`) so that a feed
 * read again unchanged costs a 304, and cache headers that let browsers and proxies keep it for a
 * short while (places left change with every registration).
 */
import { createHash } from "node:crypto"
import { isHttpUrl } from "../../Domain/Fields.js"
import { describeEvent } from "../../Events/EventMapping.js"
import type { ListedEvent } from "../../Guests/OrganizationListing.js"

/** One event of `events.json`. */
export interface EventJson {
  readonly name: string
  readonly slug: string
  /** The public page's absolute address (under PUBLIC_BASE_URL). */
  readonly url: string
  /** As given, with its offset. */
  readonly primaryDate: string
  readonly timezone: string
  readonly locationName: string | null
  readonly locationAddress: string | null
  /** By the reference's rule (CONTRACT §6): the link preview description, else the RSVP description on one line. */
  readonly description: string | null
  readonly featuredImage: string | null
  /** null without capacity. */
  readonly placesLeft: number | null
  readonly registrationOpen: boolean
}

export const eventJson = (listed: ListedEvent, url: (slug: string) => string): EventJson => {
  const { event } = listed
  const slug = event.slug ?? ""
  return {
    name: event.name,
    slug,
    url: url(slug),
    primaryDate: event.primary_date,
    timezone: event.timezone,
    locationName: event.location_name,
    locationAddress: event.location_address,
    description: describeEvent(event.link_preview_description, event.rsvp_description),
    featuredImage: event.featured_image !== null && isHttpUrl(event.featured_image) ? event.featured_image : null,
    placesLeft: listed.placesLeft,
    registrationOpen: listed.registrationOpen
  }
}

/** How long browsers and shared caches may keep a page or a feed before asking again (seconds). */
export const MAX_AGE = 60

/** A strong validator of a body: its SHA-256, shortened. */
export const etagOf = (body: string) => `"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"`

/** Whether the request's `If-None-Match` names the validator (or `*`). */
export const matches = (ifNoneMatch: string | undefined, etag: string) =>
  ifNoneMatch !== undefined && ifNoneMatch.split(",").some((tag) => {
    const value = tag.trim()
    return value === "*" || value === etag || value === `W/${etag}`
  })

/**
 * Cross-origin reads of the feeds (any site may embed them): no credentials, so `*` is the one
 * answer whatever the `Origin` (no `Vary: Origin` needed). A simple GET needs no preflight; an
 * OPTIONS is answered all the same, for clients that send one.
 */
export const corsHeaders: Readonly<Record<string, string>> = {
  "access-control-allow-origin": "*",
  "access-control-expose-headers": "ETag"
}

export const preflightHeaders: Readonly<Record<string, string>> = {
  ...corsHeaders,
  "access-control-allow-methods": "GET, HEAD, OPTIONS",
  "access-control-allow-headers": "If-None-Match",
  "access-control-max-age": "86400"
}
