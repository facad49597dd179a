/**
 * Dashboard sessions (docs/integrators.md#the-dashboard): a random id of 256 bits in the `convene_session` cookie,
 * stored as a hash; idle expiry `SESSION_IDLE_TIMEOUT`, absolute expiry 7 days; ended at sign-out,
 * and with every other session of the user when their password changes. Each session has its own
 * CSRF token, which every form of the dashboard carries. A user keeps at most `MAX_SESSIONS_PER_USER`
 * sessions: a new sign-in ends the oldest (CONTRACT §18). Sessions that have ended are deleted by
 * `SessionsPurgeLive`, a fiber of the server's.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { hashToken } from "../Domain/Secrets.js"
import { AppConfig } from "../Config/AppConfig.js"
import { Ids } from "../Domain/Ids.js"
import { nowIso } from "../Domain/Time.js"
import { repeatedly } from "../Runtime/Background.js"
import { SessionsRepo } from "./SessionsRepo.js"
import type { OrganizationRowId } from "../Domain/RowIds.js"

export const SESSION_LIFETIME = Duration.days(7)
/** The most sessions one user keeps; a new sign-in past it ends the oldest. */
export const MAX_SESSIONS_PER_USER = 20
/** How often ended sessions are deleted. */
export const PURGE_INTERVAL = Duration.minutes(10)
/** `last_seen_at` is written at most once a minute per session, not on every request. */
const TOUCH_INTERVAL_MILLIS = 60_000

const Flash = Schema.Struct({ kind: Schema.Literal("success", "error"), message: Schema.String })
export type Flash = typeof Flash.Type

/** The flash as stored; a value of another shape (or not JSON) shows nothing. */
const decodeFlash = Schema.decodeOption(Schema.parseJson(Flash))

export interface WebSession {
  readonly id: number
  readonly publicId: string
  readonly userId: number
  readonly userPublicId: string
  readonly email: string
  readonly firstName: string | null
  readonly lastName: string | null
  /** The organization the user works in now (the switcher's choice), if still theirs. */
  readonly organizationId: OrganizationRowId | null
  readonly csrf: string
  /** The message left by the last action, shown once. */
  readonly flash: Flash | null
}

const parseFlash = (text: string | null): Flash | null => text === null ? null : Option.getOrNull(decodeFlash(text))

export class Sessions extends Effect.Service<Sessions>()("Convene/Sessions", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* SessionsRepo
    const ids = yield* Ids
    const { sessionIdleTimeout } = yield* AppConfig
    const idleMillis = Duration.toMillis(sessionIdleTimeout)

    /**
     * A new session (always a new id: a cookie set before sign-in is never promoted). In the same
     * transaction, the user's oldest sessions past `MAX_SESSIONS_PER_USER` end, and their ended ones
     * go.
     */
    const start = Effect.fn("Sessions.start")(function*(userId: number, organizationId: OrganizationRowId | null) {
      const now = yield* Clock.currentTimeMillis
      const at = new Date(now).toISOString()
      const token = yield* ids.secret(32)
      const row = {
        publicId: yield* ids.uuid,
        tokenHash: hashToken(token),
        userId,
        organizationId,
        csrf: yield* ids.secret(32),
        at,
        expiresAt: new Date(now + Duration.toMillis(SESSION_LIFETIME)).toISOString()
      }
      yield* Effect.zipRight(
        repo.insert(row),
        repo.keepNewest(userId, MAX_SESSIONS_PER_USER, at, new Date(now - idleMillis).toISOString())
      ).pipe(sql.withTransaction)
      return token
    }, Effect.orDie)

    /** The live session behind a cookie value, if any; its last use is recorded. */
    const resume = Effect.fn("Sessions.resume")(function*(token: string) {
      const now = yield* Clock.currentTimeMillis
      const row = yield* repo.byTokenHash({ tokenHash: hashToken(token), now: new Date(now).toISOString() })
      if (Option.isNone(row)) return Option.none<WebSession>()
      const session = row.value
      const lastSeen = Date.parse(session.last_seen_at)
      if (lastSeen + idleMillis <= now) return Option.none<WebSession>()
      if (lastSeen + TOUCH_INTERVAL_MILLIS < now) yield* repo.touch(session.id, new Date(now).toISOString())
      return Option.some<WebSession>({
        id: session.id,
        publicId: session.public_id,
        userId: session.user_id,
        userPublicId: session.user_public_id,
        email: session.email,
        firstName: session.first_name,
        lastName: session.last_name,
        organizationId: session.organization_id,
        csrf: session.csrf,
        flash: parseFlash(session.flash)
      })
    }, Effect.orDie)

    const end = (session: Pick<WebSession, "id">) =>
      Effect.flatMap(nowIso, (at) => repo.revoke(session.id, at)).pipe(Effect.orDie)

    /** Ends every session of the user but `except` (a password change keeps the one that made it). */
    const endAllOfUser = (userId: number, except: Pick<WebSession, "id"> | null) =>
      Effect.flatMap(nowIso, (at) => repo.revokeAllOfUser(userId, except?.id ?? null, at)).pipe(Effect.orDie)

    const switchOrganization = (session: Pick<WebSession, "id">, organizationId: OrganizationRowId) =>
      repo.setOrganization(session.id, organizationId).pipe(Effect.asVoid, Effect.orDie)

    const flash = (session: Pick<WebSession, "id">, message: Flash) =>
      repo.setFlash(session.id, JSON.stringify(message)).pipe(Effect.asVoid, Effect.orDie)

    const clearFlash = (session: Pick<WebSession, "id">) => repo.setFlash(session.id, null).pipe(Effect.asVoid, Effect.orDie)

    return { start, resume, end, endAllOfUser, switchOrganization, flash, clearFlash } as const
  }),
  dependencies: [SessionsRepo.Default, Ids.Default]
}) {}

/**
 * Deletes the sessions that can never be used again (revoked, past their 7 days, or idle longer
 * than `SESSION_IDLE_TIMEOUT`; CONTRACT §18, retention): a fiber owned by the server's scope, at
 * start and then every `PURGE_INTERVAL`. A pass that fails (the database away) is logged and the
 * next one tries again; the fiber stops when the server closes. The admin CLI does not run it.
 */
export const sessionsPurge = Layer.scopedDiscard(Effect.gen(function*() {
  const repo = yield* SessionsRepo
  const { sessionIdleTimeout } = yield* AppConfig
  const idleMillis = Duration.toMillis(sessionIdleTimeout)
  const pass = Effect.flatMap(Clock.currentTimeMillis, (now) =>
    repo.deleteEnded(new Date(now).toISOString(), new Date(now - idleMillis).toISOString())).pipe(
      Effect.tap((deleted) => deleted === 0 ? Effect.void : Effect.logDebug(`sessions: ${deleted} ended sessions deleted`))
    )
  yield* repeatedly("sessions purge", pass, PURGE_INTERVAL)
}))

export const SessionsPurgeLive = sessionsPurge.pipe(Layer.provide(SessionsRepo.Default))
