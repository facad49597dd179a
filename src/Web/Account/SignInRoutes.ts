/**
 * Signing in and out, and the organization switcher. Sign-in shares the lockout of `POST /login`
 * (docs/integrators.md#login-access-tokens) and always starts a new session (a cookie set before
 * sign-in is never promoted: no session fixation).
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { Auth } from "../../Auth/Auth.js"
import { Sessions } from "../../Auth/Sessions.js"
import { EMAIL_MAX_LENGTH, PASSWORD_MAX_LENGTH } from "../../Domain/Fields.js"
import { Ids } from "../../Domain/Ids.js"
import { sameSecret } from "../../Domain/Secrets.js"
import { fromOwnPages } from "../../Http/SameOrigin.js"
import { PublicOrigin } from "../../Runtime/PublicOrigin.js"
import { asTyped, fieldsOf } from "../Kit/Form.js"
import { Web } from "../Kit/Web.js"
import { SignInPage } from "./SignInPage.js"

/** The double-submit token of the sign-in form, which has no session yet to bind a token to. */
const SIGN_IN_COOKIE = "convene_signin"

/**
 * Only a path of the dashboard itself is a place to go after signing in (no open redirect), with
 * what is not printable ASCII percent-encoded: a `Location` header takes nothing else (a line break
 * or a snowman in `next` made the redirect fail with a 500).
 */
const safeNext = (next: string | undefined) =>
  next !== undefined && /^\/app(?:[/?#]|$)/.test(next) && !next.startsWith("//")
    ? next.replace(/[^\x21-\x7e]+/g, (run) => [...Buffer.from(run, "utf8")].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, "0")}`).join(""))
    : "/app"

/** The sign-in form: the password as typed (spaces count), the form's own token, where to go next. */
const readSignIn = fieldsOf(Schema.Struct({ email: Schema.String, password: asTyped(Schema.String), next: Schema.String, _csrf: Schema.String }))
/** The organization switcher's choice. */
const readOrganization = fieldsOf(Schema.Struct({ slug: Schema.String }))

export const SignInRoutesLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const web = yield* Web
    const auth = yield* Auth
    const sessions = yield* Sessions
    const ids = yield* Ids
    const publicOrigin = yield* PublicOrigin
    const { site } = web

    const signInCookie = { httpOnly: true, sameSite: "lax" as const, secure: publicOrigin.secure, path: publicOrigin.href("/app/login") }

    const signInPage = (input: { next: string; email?: string; error?: string; notice?: string }, status = 200) =>
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const existing = request.cookies[SIGN_IN_COOKIE]
        const csrf = existing !== undefined && /^[A-Za-z0-9_-]{32}$/.test(existing) ? existing : yield* ids.secret(24)
        return yield* web.render(SignInPage({ site, csrf, ...input }), status).pipe(
          HttpServerResponse.setCookie(SIGN_IN_COOKIE, csrf, { ...signInCookie, maxAge: "2 hours" }),
          Effect.orDie
        )
      })

    yield* router.get(
      "/app/login",
      Effect.gen(function*() {
        const session = yield* web.currentSession
        const params = yield* HttpServerRequest.ParsedSearchParams
        const next = safeNext(typeof params["next"] === "string" ? params["next"] : undefined)
        if (Option.isSome(session)) return web.redirect(next)
        yield* web.limit(yield* web.clientKey)
        const notice = params["signedOut"] === "1"
          ? "You are signed out."
          : params["expired"] === "1"
          ? "Your session ended. Please sign in again."
          : params["passwordChanged"] === "1"
          ? "Your password was changed. Please sign in with the new one."
          : undefined
        return yield* signInPage(notice === undefined ? { next } : { next, notice })
      }).pipe(Effect.catchTag("RateLimited", (error) => Effect.succeed(web.tooMany(error))), web.guarded)
    )

    yield* router.post(
      "/app/login",
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        // requests without credentials draw from the client address's bucket, as POST /login does
        yield* web.limit(yield* web.clientKey)
        const { _csrf, email, next: asked, password } = readSignIn(yield* web.readForm)
        const next = safeNext(asked)
        const cookie = request.cookies[SIGN_IN_COOKIE]
        if (!fromOwnPages(request.headers, publicOrigin.webOrigin) || cookie === undefined || !sameSecret(_csrf, cookie)) {
          return yield* signInPage({ next, error: "This form expired. Please try again." }, 403)
        }
        if (email === "" || password === "") {
          return yield* signInPage({ next, email, error: "Please enter your email and password." }, 400)
        }
        if (email.length > EMAIL_MAX_LENGTH || password.length > PASSWORD_MAX_LENGTH) {
          // not shown again: what was typed may be a megabyte
          return yield* signInPage({
            next,
            error: `An email has at most ${EMAIL_MAX_LENGTH} characters and a password at most ${PASSWORD_MAX_LENGTH}.`
          }, 400)
        }
        const user = yield* auth.verify(email, Redacted.make(password), yield* web.clientKey).pipe(Effect.either)
        if (user._tag === "Left") {
          return user.left._tag === "RateLimited"
            ? yield* signInPage(
              { next, email, error: `Too many failed sign-ins for this email. Try again in ${Math.ceil(user.left.retryAfter / 60)} minutes.` },
              429
            ).pipe(Effect.map(HttpServerResponse.setHeader("retry-after", String(user.left.retryAfter))))
            : yield* signInPage({ next, email, error: "The email or password is not right." }, 401)
        }
        const memberships = yield* auth.memberships(user.right.id)
        const token = yield* sessions.start(user.right.id, memberships[0]?.organization_id ?? null)
        return yield* web.redirect(next).pipe(
          (response) => web.withSession(response, token),
          Effect.flatMap((response) => HttpServerResponse.expireCookie(response, SIGN_IN_COOKIE, signInCookie)),
          Effect.orDie
        )
      }).pipe(Effect.catchTag("RateLimited", (error) => Effect.succeed(web.tooMany(error))), web.guarded)
    )

    // every signed-in user may sign out, also one who belongs to no organization any more
    yield* router.post(
      "/app/logout",
      web.userAction((user) =>
        Effect.gen(function*() {
          yield* sessions.end(user.session)
          return yield* web.withoutSession(web.redirect("/app/login?signedOut=1"))
        }))
    )

    yield* router.post(
      "/app/organization",
      web.action("Viewer", (viewer, form) =>
        Effect.gen(function*() {
          const { slug } = readOrganization(form)
          const chosen = viewer.organizations.find((o) => o.slug === slug)
          if (chosen === undefined) return yield* web.flashTo(viewer, "error", "You are not a member of that organization.", "/app/events")
          yield* sessions.switchOrganization(viewer.session, chosen.id)
          return yield* web.flashTo(viewer, "success", `You are now working in ${chosen.name}.`, "/app/events")
        }))
    )
  })
)
