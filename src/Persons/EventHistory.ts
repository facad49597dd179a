/**
 * What a person's detail asks of the guest lists: the events the person is a guest of, with their
 * RSVP history (`eventHistory`). The guest lists are a higher feature's: Guests answers
 * (Guests/Ports.ts), and src/Server.ts provides it (ARCHITECTURE.md, "Features").
 */
import type { SqlError } from "@effect/sql/SqlError"
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type { OrganizationRowId, PersonRowId } from "../Domain/RowIds.js"
import type { EventHistoryEntry } from "./Domain.js"

export class EventHistory extends Context.Tag("Convene/EventHistory")<EventHistory, {
  readonly ofPerson: (
    personId: PersonRowId,
    organizationId: OrganizationRowId
  ) => Effect.Effect<ReadonlyArray<typeof EventHistoryEntry.Type>, SqlError>
}>() {}
