/**
 * An organization's public face (CONTRACT §16): its upcoming public events, for the page
 * `/o/<orgSlug>` and its feeds (`events.ics`, `events.json`). Private events, events without a page
 * address and past ones (started before now, §6) are never listed; an unknown organization is
 * `None`. Two statements whatever the number of events: the organization, then its events with
 * their places taken.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { DirectSql } from "../Db/DirectSql.js"
import type { EventRow } from "../Events/EventRow.js"
import { placesLeftOf, takesRegistrations } from "../Events/RegistrationWindow.js"
import { Organizations } from "../Organizations/Organizations.js"
import { type ListedRow, organizationListingStatements } from "./OrganizationListingRepo.js"

export interface ListedEvent {
  readonly event: EventRow
  /** Places left while capacity is enabled (never below 0); null without capacity. */
  readonly placesLeft: number | null
  /** Whether the public page takes registrations now (§16's rule: Events/RegistrationWindow.ts). */
  readonly registrationOpen: boolean
}

export interface Listing {
  readonly organization: { readonly slug: string; readonly name: string }
  readonly events: ReadonlyArray<ListedEvent>
}

const listed = (row: ListedRow, now: number): ListedEvent => ({
  event: row,
  placesLeft: placesLeftOf(row, row.accepted),
  registrationOpen: takesRegistrations(row, now)
})

export class OrganizationListing extends Effect.Service<OrganizationListing>()("Convene/OrganizationListing", {
  effect: Effect.gen(function*() {
    const statements = organizationListingStatements(yield* SqlClient.SqlClient, yield* DirectSql)
    const organizations = yield* Organizations

    /** The organization's upcoming public events, soonest first; `None` for an unknown organization. */
    const upcoming = Effect.fn("OrganizationListing.upcoming")(function*(slug: string) {
      const organization = yield* organizations.find(slug)
      if (Option.isNone(organization)) return Option.none<Listing>()
      const now = yield* Clock.currentTimeMillis
      const rows = yield* statements.upcoming(organization.value.id, new Date(now).toISOString()).pipe(Effect.orDie)
      return Option.some<Listing>({
        organization: { slug: organization.value.slug, name: organization.value.name },
        events: rows.map((row) => listed(row, now))
      })
    })

    return { upcoming } as const
  }),
  dependencies: [Organizations.Default]
}) {}
