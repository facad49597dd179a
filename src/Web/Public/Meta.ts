/**
 * What the public page says about its event to machines (CONTRACT §16, "Link previews"): the
 * description and image of link previews (Open Graph), and one schema.org `Event` as JSON-LD. Pure:
 * the page (Page.tsx) writes them into its head. Only what the page itself shows: never a virtual
 * location's URL or password (a `VirtualLocation`'s `url` is the public page).
 */
import { isHttpUrl } from "../../Domain/Fields.js"
import { imagesOf, virtualLocationsOf } from "../../Events/EventJson.js"
import { describeEvent } from "../../Events/EventMapping.js"
import type { EventRow } from "../../Events/EventRow.js"

/** The parts of the event's place, as the page lists them. */
export const placeParts = (event: EventRow): ReadonlyArray<string> =>
  [event.location_address, event.location_apartment, event.location_city, event.location_state, event.location_postal_code,
    event.location_country].filter((p): p is string => p !== null && p.trim() !== "")

/** A plain link to a map search of the address (no script, no embedded map: no third party loads anything). */
export const mapSearch = (address: string) => `https://www.openstreetmap.org/search?query=${encodeURIComponent(address)}`

/** The header image: `images` of type `headerImg`, else `featuredImage`; http(s) URLs only. */
export const headerImage = (event: EventRow): string | undefined =>
  [imagesOf(event).find((i) => i.type === "headerImg")?.url, event.featured_image]
    .find((url): url is string => typeof url === "string" && isHttpUrl(url))

/** The preview image: `featuredImage` when set (CONTRACT §16). */
export const previewImage = (event: EventRow): string | undefined =>
  event.featured_image !== null && isHttpUrl(event.featured_image) ? event.featured_image : undefined

/** The event's `description` by the reference's rule (link preview description, else the RSVP description on one line). */
export const previewDescription = (event: EventRow): string | null =>
  describeEvent(event.link_preview_description, event.rsvp_description)

/** JSON that can sit inside a `<script>` element: nothing in it can end the element or start a comment. */
export const scriptSafeJson = (value: unknown): string =>
  JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/>/g, "\\u003e")
    .replace(/&/g, "\\u0026")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029")

/** The event as a schema.org `Event`, for search engines and link unfurlers. */
export const eventJsonLd = (event: EventRow, organizer: string, pageUrl: string): Record<string, unknown> => {
  const parts = placeParts(event)
  const online = virtualLocationsOf(event).length > 0
  const physical = event.location_name !== null || parts.length > 0
  const place = {
    "@type": "Place",
    name: event.location_name ?? parts[0] ?? "To be announced",
    ...(parts.length === 0
      ? {}
      : {
        address: {
          "@type": "PostalAddress",
          streetAddress: [event.location_address, event.location_apartment].filter((p) => p !== null && p !== "").join(", ") || undefined,
          addressLocality: event.location_city ?? undefined,
          addressRegion: event.location_state ?? undefined,
          postalCode: event.location_postal_code ?? undefined,
          addressCountry: event.location_country ?? undefined
        }
      })
  }
  const virtual = { "@type": "VirtualLocation", url: pageUrl }
  const images = [previewImage(event), headerImage(event)].filter((u, i, all): u is string => u !== undefined && all.indexOf(u) === i)
  const description = previewDescription(event)
  return {
    "@context": "https://schema.org",
    "@type": "Event",
    name: event.name,
    startDate: event.primary_date,
    ...(event.end_date === null ? {} : { endDate: event.end_date }),
    eventAttendanceMode: `https://schema.org/${online && physical ? "Mixed" : online ? "Online" : "Offline"}EventAttendanceMode`,
    eventStatus: "https://schema.org/EventScheduled",
    location: online && physical ? [place, virtual] : online ? virtual : place,
    organizer: { "@type": "Organization", name: organizer },
    ...(images.length === 0 ? {} : { image: images }),
    ...(description === null ? {} : { description }),
    url: pageUrl
  }
}
