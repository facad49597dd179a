/**
 * Who is calling: API tokens (`x-api-key`, wins when present) and login access tokens
 * (`Authorization: Bearer`), both looked up by hash. Also `POST /login` and `GET /me`.
 */
import type * as Headers from "@effect/platform/Headers"
import type { SqlError } from "@effect/sql/SqlError"
import * as Clock from "effect/Clock"
import * as DateTime from "effect/DateTime"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { AppConfig } from "../Config/AppConfig.js"
import { Ids } from "../Domain/Ids.js"
import { highest, type Role } from "../Domain/Role.js"
import type { Session } from "../Domain/Caller.js"
import { Unauthorized } from "../Domain/Errors.js"
import { Users } from "../Organizations/Users.js"
import { AuthRepo } from "./AuthRepo.js"
import { CredentialCache, type Remembered } from "./CredentialCache.js"
import { LoginThrottle } from "./LoginThrottle.js"
import { Sessions } from "./Sessions.js"
import { ACCESS_TOKEN_PREFIX, DUMMY_PASSWORD_HASH, hashToken, verifyPassword } from "../Domain/Secrets.js"
import { EMAIL_MAX_LENGTH, emailKeyOf, PASSWORD_MAX_LENGTH } from "../Domain/Fields.js"
import { orDieOnStorage } from "../Db/SqlErrors.js"
import type { OrganizationRowId } from "../Domain/RowIds.js"

export type Credential =
  | { readonly _tag: "Missing" }
  | { readonly _tag: "Invalid" }
  | {
    readonly _tag: "ApiToken"
    readonly tokenId: string
    readonly organizationId: OrganizationRowId
    readonly organizationSlug: string
  }
  | {
    readonly _tag: "AccessToken"
    readonly tokenId: string
    readonly userId: number
    readonly userPublicId: string
  }

const missing: Credential = { _tag: "Missing" }
const invalid: Credential = { _tag: "Invalid" }

/** The identity rate limits and idempotency keys are kept per, when the credential is valid. */
export const credentialKey = (credential: Credential): string | undefined =>
  credential._tag === "ApiToken"
    ? `apiKey:${credential.tokenId}`
    : credential._tag === "AccessToken"
    ? `accessToken:${credential.tokenId}`
    : undefined

const BEARER = /^Bearer[ \t]+([^\s]+)[ \t]*$/i
/** `last_used_at` is written at most once a minute per token, not on every request. */
const TOUCH_INTERVAL_MILLIS = 60_000

export class Auth extends Effect.Service<Auth>()("Convene/Auth", {
  effect: Effect.gen(function*() {
    const repo = yield* AuthRepo
    const users = yield* Users
    const throttle = yield* LoginThrottle
    const sessions = yield* Sessions
    const ids = yield* Ids
    const cache = yield* CredentialCache
    const { accessTokenTtl } = yield* AppConfig

    /** An API token as remembered: its credential, and when it was last marked used. */
    interface KnownApiToken {
      readonly credential: Credential
      readonly id: number
      lastUsedAt: number
    }

    /** `last_used_at` is written when it is more than a minute old. */
    const used = (token: KnownApiToken, now: number): Effect.Effect<Credential, SqlError> => {
      if (token.lastUsedAt + TOUCH_INTERVAL_MILLIS >= now) return Effect.succeed(token.credential)
      token.lastUsedAt = now
      return Effect.as(repo.touchApiToken(token.id, new Date(now).toISOString()), token.credential)
    }

    // Both lookups remember what they find (CredentialCache.ts: forgotten on revocation, on a
    // password change, when another process writes, and at an access token's expiry).
    /** The cache's key of a presented token: its kind and hash (the token itself is never kept). */
    const keyOf = (kind: string, hash: Uint8Array) => `${kind}:${Buffer.from(hash).toString("base64")}`

    const apiKeyCredential = (apiKey: string) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        const hash = hashToken(apiKey)
        const lookup = Effect.map(repo.apiToken(hash), (row): Remembered<KnownApiToken> | undefined =>
          Option.isNone(row) ? undefined : {
            value: {
              credential: {
                _tag: "ApiToken",
                tokenId: row.value.public_id,
                organizationId: row.value.organization_id,
                organizationSlug: row.value.slug
              },
              id: row.value.id,
              lastUsedAt: row.value.last_used_at === null ? Number.NEGATIVE_INFINITY : Date.parse(row.value.last_used_at)
            },
            expiresAt: Number.POSITIVE_INFINITY
          })
        return Effect.flatMap(cache.through(keyOf("apiKey", hash), now, lookup), (token) =>
          token === undefined ? Effect.succeed(invalid) : used(token, now))
      })

    const accessTokenCredential = (accessToken: string) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        const hash = hashToken(accessToken)
        const lookup = Effect.map(repo.accessToken({ hash, now: new Date(now).toISOString() }), (row): Remembered<Credential> | undefined =>
          Option.isNone(row) ? undefined : {
            value: {
              _tag: "AccessToken",
              tokenId: row.value.public_id,
              userId: row.value.user_id,
              userPublicId: row.value.user_public_id
            },
            expiresAt: Date.parse(row.value.expires_at)
          })
        return Effect.map(cache.through(keyOf("accessToken", hash), now, lookup), (credential) => credential ?? invalid)
      })

    const identify = (headers: Headers.Headers): Effect.Effect<Credential> => {
      const apiKey = headers["x-api-key"]?.trim()
      if (apiKey !== undefined && apiKey !== "") return Effect.orDie(apiKeyCredential(apiKey))
      const authorization = headers["authorization"]
      if (authorization === undefined || authorization.trim() === "") return Effect.succeed(missing)
      const bearer = BEARER.exec(authorization)
      if (bearer === null) return Effect.succeed(invalid)
      return Effect.orDie(accessTokenCredential(bearer[1]!))
    }

    /** Every organization of a user, with their role in it, by slug. */
    const memberships = (userId: number) => users.memberships(userId).pipe(Effect.orDie)

    /** A user's role in one organization, by slug. */
    const membership = (userId: number, organizationSlug: string) =>
      users.membership({ userId, organizationSlug }).pipe(Effect.orDie)

    /**
     * Checks an email and password under the login lockout (LoginThrottle.ts: 10 failures for one
     * email from one client address in 15 minutes, or 100 from all addresses, then 429 until the
     * window has passed): `POST /login`, the dashboard's sign-in and its password change share it,
     * so none is a way around the others' count. `client` is the client address's rate-limit key
     * (Http/ClientAddress.ts `rateKeyOf`).
     */
    const verify = Effect.fn("Auth.verify")(function*(email: string, password: Redacted.Redacted, client: string) {
      // longer than any member's can be: refused before the lockout's count, the database and scrypt
      if (email.length > EMAIL_MAX_LENGTH || Redacted.value(password).length > PASSWORD_MAX_LENGTH) {
        return yield* new Unauthorized({ message: "Invalid email or password" })
      }
      const key = emailKeyOf(email)
      yield* throttle.check(key, client)
      const user = yield* users.byEmail(key).pipe(Effect.orDie)
      const matches = yield* verifyPassword(
        password,
        Option.match(user, { onNone: () => DUMMY_PASSWORD_HASH, onSome: (u) => u.password_hash })
      )
      if (Option.isNone(user) || !matches) {
        yield* throttle.recordFailure(key, client)
        return yield* new Unauthorized({ message: "Invalid email or password" })
      }
      yield* throttle.recordSuccess(key, client)
      return user.value
    })

    const login = Effect.fn("Auth.login")(function*(email: string, password: Redacted.Redacted, client: string) {
      const user = yield* verify(email, password, client)
      const token = ACCESS_TOKEN_PREFIX + (yield* ids.secret(32))
      const now = yield* DateTime.now
      yield* repo.deleteExpiredAccessTokens(DateTime.formatIso(now))
      yield* repo.insertAccessToken({
        publicId: yield* ids.uuid,
        userId: user.id,
        tokenHash: hashToken(token),
        createdAt: DateTime.formatIso(now),
        expiresAt: DateTime.formatIso(DateTime.addDuration(now, accessTokenTtl))
      })
      const memberships = yield* users.memberships(user.id)
      return {
        accessToken: token,
        organizationSlugs: memberships.map((m) => m.slug),
        expiresIn: Math.floor(Duration.toSeconds(accessTokenTtl))
      }
    }, orDieOnStorage)

    const me = Effect.fn("Auth.me")(function*(session: Session) {
      if (Option.isSome(session.apiToken)) {
        return {
          firstName: null,
          lastName: null,
          email: null,
          role: "Admin" as Role,
          organizationSlugs: [session.apiToken.value.organizationSlug],
          organizations: [{ slug: session.apiToken.value.organizationSlug, role: "Admin" as Role }]
        }
      }
      const userId = Option.getOrThrow(session.userId)
      const user = Option.getOrThrow(yield* users.byId(userId))
      const memberships = yield* users.memberships(userId)
      return {
        firstName: user.first_name,
        lastName: user.last_name,
        email: user.email,
        role: highest(memberships.map((m) => m.role)) ?? null,
        organizationSlugs: memberships.map((m) => m.slug),
        organizations: memberships.map((m) => ({ slug: m.slug, role: m.role }))
      }
    }, Effect.orDie)

    /**
     * A password change's end of the user's sign-ins (docs/integrators.md#the-dashboard): every dashboard session, the
     * one that made the change included. `Passwords` replaces the password and ends the login access
     * tokens in the same transaction, which this joins.
     */
    const endSessions = (userId: number) => sessions.endAllOfUser(userId, null)

    return { identify, membership, memberships, verify, login, me, endSessions } as const
  }),
  dependencies: [
    AuthRepo.Default,
    Users.Default,
    LoginThrottle.Default,
    Sessions.Default,
    Ids.Default,
    CredentialCache.Default
  ]
}) {}
