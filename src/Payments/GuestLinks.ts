/**
 * What a purchase asks of the guest lists: which of the given persons (by public id) are on an
 * event's guest list now, with their row ids. The guest lists are a higher feature's: Guests
 * answers (Guests/Ports.ts), and src/Server.ts provides it (ARCHITECTURE.md, "Features").
 */
import type { SqlError } from "@effect/sql/SqlError"
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type { EventRowId, OrganizationRowId, PersonRowId } from "../Domain/RowIds.js"

export class GuestLinks extends Context.Tag("Convene/GuestLinks")<GuestLinks, {
  readonly onList: (
    eventId: EventRowId,
    organizationId: OrganizationRowId,
    personPublicIds: ReadonlyArray<string>
  ) => Effect.Effect<ReadonlyMap<string, PersonRowId>, SqlError>
}>() {}
