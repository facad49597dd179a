import * as Context from "effect/Context"
import type * as Option from "effect/Option"
import type { Role } from "./Role.js"
import type { OrganizationRowId } from "./RowIds.js"

/** Who acts: an organization's API token, or a member who logged in. */
export interface Actor {
  readonly type: "apiKey" | "user"
  /** The token's or the user's public id, as written into RSVP history entries. */
  readonly id: string
}

/** The authenticated caller of the current request, scoped to one organization. */
export interface Caller {
  readonly organizationId: OrganizationRowId
  readonly organizationSlug: string
  readonly role: Role
  readonly actor: Actor
  /** The user's internal id when a member logged in. */
  readonly userId: Option.Option<number>
  /** The identity that rate limits and idempotency keys are kept per. */
  readonly callerKey: string
}

export class CurrentCaller extends Context.Tag("Convene/CurrentCaller")<CurrentCaller, Caller>() {}

/** A logged-in user or token, not yet bound to an organization (`GET /me`). */
export interface Session {
  readonly kind: "apiKey" | "user"
  readonly userId: Option.Option<number>
  readonly apiToken: Option.Option<{ readonly organizationSlug: string }>
  readonly callerKey: string
}

export class CurrentSession extends Context.Tag("Convene/CurrentSession")<CurrentSession, Session>() {}
