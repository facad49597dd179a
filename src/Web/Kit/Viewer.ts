/**
 * Who is looking at a page: the signed-in member in the organization they work in, looked up on
 * every request (a removed member or a changed role takes effect at once), as the same `Caller` the
 * API's handlers get, so that pages call the same services with the same roles and history.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { Auth } from "../../Auth/Auth.js"
import type { Sessions, WebSession } from "../../Auth/Sessions.js"
import type { Caller } from "../../Domain/Caller.js"
import type { Forbidden, NotFound, RateLimited, Unauthorized } from "../../Domain/Errors.js"
import { atLeast, type Role } from "../../Domain/Role.js"
import type { OrganizationRowId } from "../../Domain/RowIds.js"
import type { FlashView, Member } from "./Layout.js"

export interface Organization {
  readonly id: OrganizationRowId
  readonly slug: string
  readonly name: string
  readonly role: Role
}

/** The signed-in member, in the organization they work in now. */
export interface Viewer {
  readonly session: WebSession
  readonly organization: Organization
  readonly organizations: ReadonlyArray<Organization>
  /** The same caller an API request of this member would be: services take it. */
  readonly caller: Caller
  /** What the layout shows of the member. */
  readonly member: Member
  readonly flash: FlashView | null
  readonly role: Role
  readonly can: (role: Role) => boolean
}

/** Whoever is signed in, with their organization view when they belong to one. */
export interface SignedInUser {
  readonly session: WebSession
  /** Undefined for a user who belongs to no organization (removed from their last, or not yet joined). */
  readonly viewer: Viewer | undefined
  /** The message left by the last action, shown once. */
  readonly flash: FlashView | null
}

/** What a handler may fail with; anything else is a defect (a logged 500). */
export type PageError = NotFound | Forbidden | RateLimited | Unauthorized

/** The member a live session is, in its organization (or the first of theirs); none for a user of no organization. */
export const viewerOf = (auth: Auth, sessions: Sessions) => (session: WebSession) =>
  Effect.gen(function*() {
    const memberships = yield* auth.memberships(session.userId)
    const all: ReadonlyArray<Organization> = memberships.map((m) => ({
      id: m.organization_id,
      slug: m.slug,
      name: m.name,
      role: m.role
    }))
    const current = all.find((o) => o.id === session.organizationId) ?? all[0]
    if (current === undefined) return Option.none<Viewer>()
    const name = [session.firstName, session.lastName].filter((s) => s !== null && s !== "").join(" ") || session.email
    const caller: Caller = {
      organizationId: current.id,
      organizationSlug: current.slug,
      role: current.role,
      actor: { type: "user", id: session.userPublicId },
      userId: Option.some(session.userId),
      callerKey: `session:${session.publicId}`
    }
    if (session.flash !== null) yield* sessions.clearFlash(session)
    return Option.some<Viewer>({
      session,
      organization: current,
      organizations: all,
      caller,
      member: { name, email: session.email, csrf: session.csrf, role: current.role, organization: current, organizations: all },
      flash: session.flash,
      role: current.role,
      can: (role) => atLeast(current.role, role)
    })
  })
