/**
 * Internal row ids: the `id` keys the database gives organizations, persons, events and guests
 * (their `event_guests` rows), which the service passes around beside the public UUIDs and slugs
 * of the API. Each is a number with a brand of its own, so that an event's row id cannot be passed
 * where a person's or an organization's is expected, nor a bare number where any of them is.
 *
 * Brands are types only. Rows come back from the database decoded by their repository's schemas,
 * whose key columns (`rowIdColumn`) give them these types; a row id made elsewhere (an INSERT's
 * RETURNING, a number read from a JSON array) is branded by the constructor below, an identity
 * function.
 */
import * as Brand from "effect/Brand"
import * as Schema from "effect/Schema"

/** `persons.id`. */
export type PersonRowId = number & Brand.Brand<"PersonRowId">
export const PersonRowId = Brand.nominal<PersonRowId>()

/** `events.id`. */
export type EventRowId = number & Brand.Brand<"EventRowId">
export const EventRowId = Brand.nominal<EventRowId>()

/** `organizations.id`: the tenant every other row belongs to. */
export type OrganizationRowId = number & Brand.Brand<"OrganizationRowId">
export const OrganizationRowId = Brand.nominal<OrganizationRowId>()

/** `event_guests.id`: one person on one event's guest list. */
export type GuestRowId = number & Brand.Brand<"GuestRowId">
export const GuestRowId = Brand.nominal<GuestRowId>()

/** Row id columns of row schemas: numbers, with the brand in their type (no check beyond the number's). */
export const rowIdColumn = {
  person: Schema.Number.pipe(Schema.fromBrand(PersonRowId)),
  event: Schema.Number.pipe(Schema.fromBrand(EventRowId)),
  guest: Schema.Number.pipe(Schema.fromBrand(GuestRowId)),
  organization: Schema.Number.pipe(Schema.fromBrand(OrganizationRowId))
}
