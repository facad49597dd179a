/**
 * How a page ends when it cannot show what was asked: the errors a handler may end with answered as
 * pages (404, 403, 429, the sign-in page), and every unexpected failure logged with its cause and
 * answered as a page with the dashboard's headers, never the API's JSON 500 nor anything of the cause.
 */
import type * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as ServerResponse from "@effect/platform/HttpServerResponse"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import type { VNode } from "preact"
import type { RateLimited } from "../../Domain/Errors.js"
import { RequestTimeout } from "../../Http/Errors.js"
import { StreamsBusy } from "../../Http/StreamSlots.js"
import { DATABASE_LOST, databaseLost, POOL_BUSY, poolTimedOut } from "../../Db/SqlErrors.js"
import { MessagePage, type Site } from "./Layout.js"
import type { PageError, Viewer } from "./Viewer.js"

type Response = HttpServerResponse.HttpServerResponse

export const answersOf = (web: {
  readonly site: Site
  readonly render: (page: VNode, status?: number) => Response
  readonly redirect: (path: string) => Response
}) => {
  const { site } = web

  const messagePage = (viewer: Viewer | undefined, status: number, title: string, message: string) =>
    web.render(MessagePage({ site, member: viewer?.member, title, message, back: { href: site.href("/app"), label: "Back to the dashboard" } }), status)

  const tooMany = (error: RateLimited) =>
    messagePage(undefined, 429, "Too many requests", `Please wait ${error.retryAfter} seconds and try again.`).pipe(
      ServerResponse.setHeader("retry-after", String(error.retryAfter))
    )

  /** Answers the errors a page may end with as pages; the rest stays a defect (a logged 500). */
  const answerErrors = (viewer: Viewer | undefined) => <R>(effect: Effect.Effect<Response, PageError, R>) =>
    Effect.catchAll(effect, (error): Effect.Effect<Response> => {
      switch (error._tag) {
        case "NotFound":
          return Effect.succeed(messagePage(viewer, 404, "Not found", "This page does not exist, or it belongs to another organization."))
        case "Forbidden":
          return Effect.succeed(messagePage(viewer, 403, "Not allowed", `${error.message}. Ask a Super Admin of your organization if you need it.`))
        case "RateLimited":
          return Effect.succeed(tooMany(error))
        case "Unauthorized":
          return Effect.succeed(web.redirect("/app/login"))
      }
    })

  /**
   * An unexpected failure of a page is logged with its cause (under the request id) and answered
   * as a page. A form that did not arrive in time (Http/JsonBody.ts) answers 408, and a download
   * that found no free share of the streamed answers (Http/StreamSlots.ts) 503, both without a log.
   */
  const guarded = <R>(effect: Effect.Effect<Response, never, R>) =>
    Effect.catchAllCause(effect, (cause) =>
      Cause.isInterruptedOnly(cause)
        ? Effect.failCause(cause)
        : poolTimedOut(cause) || databaseLost(cause)
        ? Effect.as(
          poolTimedOut(cause) ? Effect.logWarning(POOL_BUSY) : Effect.logWarning(DATABASE_LOST, cause),
          messagePage(undefined, 503, "Busy", "The service is busy. Please try again in a moment.").pipe(
            ServerResponse.setHeader("retry-after", "1")
          )
        )
        : Cause.squash(cause) instanceof RequestTimeout
        ? Effect.succeed(
          messagePage(undefined, 408, "Too slow", "The form did not arrive in time. Please go back and send it again.").pipe(
            ServerResponse.setHeader("connection", "close")
          )
        )
        : Cause.squash(cause) instanceof StreamsBusy
        ? Effect.succeed(
          messagePage(undefined, 503, "Busy", "Other downloads are running. Please try again in a moment.").pipe(
            ServerResponse.setHeader("retry-after", "5")
          )
        )
        : Effect.as(
          Effect.logError("Unexpected failure", cause),
          messagePage(undefined, 500, "Something went wrong", "The page could not be shown. Please try again; if it keeps happening, tell the person who runs Convene the time it happened.")
        ))

  const formExpired = (viewer: Viewer | undefined) =>
    messagePage(viewer, 403, "This form expired", "The form came from another site or an old page. Please go back, reload the page and try again.")

  return { messagePage, tooMany, answerErrors, guarded, formExpired } as const
}
