/**
 * What a form's action answers, in one place (Kit/Web.ts hands these out as `web.flashTo`,
 * `web.perform` and `web.confirm`): the message for the next page and the redirect to it, the
 * outcome of a service call said that way, and the confirmation page of a destructive form.
 *
 * ```ts
 * return yield* web.perform(viewer, guestLists.update(viewer.caller, id, [{ personId, rsvpStatus }]), {
 *   to: back,
 *   done: () => `RSVP status of ${guest.name} set to ${rsvpStatus}.`,
 *   failed: (error) => error._tag === "Conflict" ? historyFull(guest.name) : `${guest.name} is no longer on the list.`
 * })
 * ```
 */
import type * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import type { VNode } from "preact"
import type { Conflict, InvalidRequest, NotFound } from "../../Domain/Errors.js"
import { ConfirmPage } from "./Confirm.js"
import type { FlashView, Section, Site } from "./Layout.js"
import type { PageError, Viewer } from "./Viewer.js"

type Response = HttpServerResponse.HttpServerResponse

/** What an outcome says: a message for the next page (after the redirect), or an answer of its own. */
export type Said<R> = string | Effect.Effect<Response, PageError, R>

/**
 * A service call's outcome as a form's answer. The next page is `to`, after either message; when
 * it depends on the result (a new contact's page), `to` is a function of it, and a failure answers
 * with a page of its own (the form again, with its errors).
 */
export type Outcome<A, E, R> = {
  readonly to: string
  /** On success: a success message, or the answer. */
  readonly done: (value: A) => Said<R>
  /** On a failure of the call: an error message, or the answer (the form again with its errors, a failure kept as a page). */
  readonly failed: (error: E) => Said<R>
} | {
  readonly to: (value: A) => string
  readonly done: (value: A) => Said<R>
  readonly failed: (error: E) => Effect.Effect<Response, PageError, R>
}

/**
 * A form's failure as its answer: its refusals (invalid input, a conflict) by `refuse`, the form
 * again with its errors; what was not found meanwhile, the 404 page, as on any page.
 */
export const refusedBy = <R>(refuse: (error: InvalidRequest | Conflict) => Effect.Effect<Response, PageError, R>) =>
(error: InvalidRequest | Conflict | NotFound): Effect.Effect<Response, PageError, R> =>
  error._tag === "NotFound" ? Effect.fail(error) : refuse(error)

/** What a confirmation page asks (paths without the prefix). */
export interface Confirmation {
  readonly section: Section
  readonly title: string
  readonly message: string
  /** The form's path: the same form, with `confirm=yes` and `fields`. */
  readonly action: string
  readonly confirmLabel: string
  /** Where Cancel leads. */
  readonly cancel: string
  readonly fields?: ReadonlyArray<readonly [string, string]>
}

export const actionsOf = (web: {
  readonly site: Site
  readonly render: (page: VNode, status?: number) => Response
  readonly redirect: (path: string) => Response
  readonly flash: (viewer: Viewer, kind: FlashView["kind"], message: string) => Effect.Effect<void>
}) => {
  /** Leaves a message for the next page and sends the browser there: the answer of most forms. */
  const flashTo = (viewer: Viewer, kind: FlashView["kind"], message: string, path: string) =>
    Effect.as(web.flash(viewer, kind, message), web.redirect(path))

  const say = <R>(viewer: Viewer, kind: FlashView["kind"], said: Said<R>, to: string) =>
    typeof said === "string" ? flashTo(viewer, kind, said, to) : said

  /** Runs a form's service call and answers with its outcome (see the top of this file). */
  const perform = <A, E, R, R2 = never>(viewer: Viewer, call: Effect.Effect<A, E, R>, outcome: Outcome<A, E, R2>) =>
    Effect.matchEffect(call, {
      onFailure: (error) => {
        const said = outcome.failed(error)
        // a message: `to` is a path (a failure of an outcome whose `to` is a function answers a page)
        return typeof said === "string" ? flashTo(viewer, "error", said, outcome.to as string) : said
      },
      onSuccess: (value) => say(viewer, "success", outcome.done(value), typeof outcome.to === "string" ? outcome.to : outcome.to(value))
    })

  /** The page a destructive form answers before it acts, when scripts did not ask first. */
  const confirm = (viewer: Viewer, ask: Confirmation) =>
    web.render(ConfirmPage({
      section: ask.section,
      site: web.site,
      member: viewer.member,
      title: ask.title,
      message: ask.message,
      action: web.site.href(ask.action),
      confirmLabel: ask.confirmLabel,
      cancel: web.site.href(ask.cancel),
      ...(ask.fields === undefined ? {} : { fields: ask.fields })
    }))

  return { flashTo, perform, confirm } as const
}
