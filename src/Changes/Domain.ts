/**
 * The change feed's vocabulary (docs/integrators.md#syncing-with-the-change-feed): what changed
 * (`type`, and `id`, with `eventId` for a guest) and how (`action`). A change names the entity,
 * never its values: a client fetches the current state by id.
 */
import * as Schema from "effect/Schema"

/** Changes per page: `limit` 1 to `MAX_LIMIT`, `DEFAULT_LIMIT` when absent. */
export const DEFAULT_LIMIT = 100
export const MAX_LIMIT = 1_000

export const changeTypes = ["person", "event", "guest"] as const
export type ChangeType = (typeof changeTypes)[number]

/**
 * - `created`: a person or an event made; a guest put on a list (also again after it was removed);
 * - `updated`: anything of it changed (a guest: its RSVP, attendance, answers, columns, history,
 *   RSVP link or payments; its person's own fields are the person's changes);
 * - `archived`, `unarchived`: a person archived or restored;
 * - `removed`: a guest taken off a list;
 * - `deleted`: an entity gone for good (nothing deletes persons or events yet).
 */
export const changeActions = ["created", "updated", "archived", "unarchived", "deleted", "removed"] as const
export type ChangeAction = (typeof changeActions)[number]

/** One change to record: the entity's public id, and the event's for a guest. */
export interface ChangeEntry {
  readonly type: ChangeType
  readonly action: ChangeAction
  readonly id: string
  readonly eventId?: string | undefined
}

export const personChange = (action: ChangeAction, personId: string): ChangeEntry => ({ type: "person", action, id: personId })
export const eventChange = (action: ChangeAction, eventId: string): ChangeEntry => ({ type: "event", action, id: eventId })
export const guestChange = (action: ChangeAction, personId: string, eventId: string): ChangeEntry => ({
  type: "guest",
  action,
  id: personId,
  eventId
})

export const Change = Schema.Struct({
  cursor: Schema.String.annotations({ description: "This change's position: `after=<cursor>` continues after it." }),
  type: Schema.Literal(...changeTypes),
  action: Schema.Literal(...changeActions),
  id: Schema.String.annotations({ description: "The personId or eventId; for a guest, the personId." }),
  eventId: Schema.optionalWith(Schema.String.annotations({ description: "For a guest: the event whose list it is on." }), {
    exact: true
  }),
  occurredAt: Schema.String.annotations({ description: "When the change was recorded (ISO 8601, UTC)." })
}).annotations({ identifier: "Change" })
export type Change = typeof Change.Type

export const ChangesPage = Schema.Struct({
  changes: Schema.Array(Change),
  nextCursor: Schema.String.annotations({
    description: "The cursor to pass as `after` next, also when `changes` is empty. Store it after applying the page."
  }),
  hasMore: Schema.Boolean.annotations({ description: "More changes are waiting right now: ask again at once." })
}).annotations({
  identifier: "ChangesPage",
  examples: [{
    changes: [
      {
        cursor: "aW0cTQ2bWlRkG9tqRz1xqA",
        type: "person",
        action: "updated",
        id: "f8a64a54-f28c-4234-8ab3-1335fdf45bad",
        occurredAt: "2030-05-01T17:30:00.000Z"
      },
      {
        cursor: "Xg3tX3kq0xJ8r0dO1gqkbQ",
        type: "guest",
        action: "removed",
        id: "f8a64a54-f28c-4234-8ab3-1335fdf45bad",
        eventId: "f8b1969a-2a0c-4c1e-9d51-8c7e6d30f3a2",
        occurredAt: "2030-05-01T17:31:02.000Z"
      }
    ],
    nextCursor: "Xg3tX3kq0xJ8r0dO1gqkbQ",
    hasMore: false
  }]
})
export type ChangesPage = typeof ChangesPage.Type
