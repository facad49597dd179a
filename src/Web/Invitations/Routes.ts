/**
 * Invitations by email in the dashboard (docs/integrators.md#email-invitations): an event's invitations log (Viewer and
 * above), and sending (Team Member and above) in three steps: choose the recipients and write the
 * email, preview the real email for one of them, send. The same `EventInvitations` service as
 * `POST /event/:id/invitations`, with the same schema for what the form sends, so the emails, the
 * outbox and the refusals are identical. Works without JavaScript: the guest list's selection
 * arrives as a POST of its checkboxes.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type { EventRow } from "../../Events/EventRow.js"
import { REINVITE_WINDOW_MINUTES } from "../../Invitations/Domain.js"
import { defaultSubject } from "../../Invitations/InvitationEmail.js"
import { type Audience, EventInvitations } from "../../Invitations/Invitations.js"
import { summaryOf } from "../Events/Summary.js"
import { Offset, pathParams, readQuery } from "../Kit/Form.js"
import { plural, waitInWords } from "../Kit/Format.js"
import type { Viewer } from "../Kit/Viewer.js"
import { Web } from "../Kit/Web.js"
import { type ComposeErrors, type ComposeForm, composeFormOf, errorsOf, INVITATIONS_PER_PAGE, issuesOfInvalid, issuesOfParse, type Recipient, sendInputOf } from "./Compose.js"
import { ComposePage } from "./ComposePage.js"
import { InvitationsPage, NotConfiguredPage } from "./LogPage.js"
import { PreviewPage } from "./PreviewPage.js"

const eventId = Effect.map(pathParams("id"), ({ id }) => id)

export const InvitationsRoutesLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const web = yield* Web
    const invitations = yield* EventInvitations
    const { site } = web

    const recipientOf = (r: { public_id: string; first_name: string; last_name: string; email: string }): Recipient => ({
      personId: r.public_id,
      name: `${r.first_name} ${r.last_name}`.trim(),
      email: r.email
    })

    const blockedOf = (event: EventRow) =>
      event.slug === null
        ? "This event has no page address, so invitations would have no RSVP link. Give it an address on the event's form first."
        : undefined

    /** The compose form, with the selected guests as found on the list. */
    const compose = (viewer: Viewer, id: string, form: ComposeForm, errors: ComposeErrors, status: number) =>
      Effect.gen(function*() {
        const overview = yield* invitations.overview(viewer.caller, id)
        const quota = yield* invitations.quota(viewer.caller)
        const selected = form.personIds.length === 0
          ? []
          : (yield* invitations.preview(viewer.caller, id, { personIds: form.personIds }, {}).pipe(
            Effect.map(({ recipients }) => recipients.map(recipientOf)),
            // a selection naming guests no longer on the list shows those still on it
            Effect.catchTag("InvalidRequest", () => Effect.succeed<ReadonlyArray<Recipient>>([]))
          ))
        return web.render(
          ComposePage({
            site,
            member: viewer.member,
            event: summaryOf(overview.event),
            form: selected.length === 0 ? { ...form, audience: "statuses" } : form,
            selected,
            guestsByStatus: overview.guestsByStatus,
            defaultSubject: defaultSubject(overview.event.name),
            errors,
            blocked: blockedOf(overview.event),
            quota
          }),
          status
        )
      })

    const notConfigured = (viewer: Viewer, id: string, status: number) =>
      Effect.map(invitations.overview(viewer.caller, id), ({ event }) =>
        web.render(NotConfiguredPage({ site, member: viewer.member, event: summaryOf(event) }), status))

    // the log: Viewer and above
    yield* router.get(
      "/app/events/:id/invitations",
      web.page("Viewer", (viewer) =>
        Effect.gen(function*() {
          const id = yield* eventId
          const { skip } = yield* readQuery(Schema.Struct({ skip: Offset }))
          const overview = yield* invitations.overview(viewer.caller, id)
          const log = yield* invitations.list(viewer.caller, id, { limit: INVITATIONS_PER_PAGE, skip })
          return web.render(InvitationsPage({
            site,
            member: viewer.member,
            flash: viewer.flash,
            event: summaryOf(overview.event),
            configured: invitations.configured,
            quota: invitations.configured ? yield* invitations.quota(viewer.caller) : null,
            canSend: viewer.can("Team Member"),
            byState: overview.byState,
            invitations: log.invitations,
            total: log.total,
            skip
          }))
        }))
    )

    // a fresh form: every Invited guest, unless the link names a status
    yield* router.get(
      "/app/events/:id/invitations/new",
      web.page("Team Member", (viewer) =>
        Effect.gen(function*() {
          const id = yield* eventId
          if (!invitations.configured) return yield* notConfigured(viewer, id, 200)
          const { status } = yield* readQuery(Schema.Struct({ status: Schema.String }))
          const statuses = status !== "" ? [status] : ["Invited"]
          return yield* compose(viewer, id, { audience: "statuses", personIds: [], statuses, subject: "", message: "" }, {}, 200)
        }))
    )

    // the guest list's selection (its checkboxes), or the preview's "Change the email"
    yield* router.post(
      "/app/events/:id/invitations/new",
      web.action("Team Member", (viewer, form) =>
        Effect.gen(function*() {
          const id = yield* eventId
          if (!invitations.configured) return yield* notConfigured(viewer, id, 200)
          const composed = composeFormOf(form)
          // from the guest list: a filter by status without a selection chooses that status
          const fromList = form.get("edit") !== "1"
          const initial: ComposeForm = fromList && composed.personIds.length === 0
            ? { ...composed, audience: "statuses", statuses: composed.statuses.length > 0 ? composed.statuses.slice(0, 1) : ["Invited"] }
            : fromList
            ? { ...composed, audience: "selected", statuses: [] }
            : composed
          return yield* compose(viewer, id, initial, {}, 200)
        }))
    )

    yield* router.post(
      "/app/events/:id/invitations/preview",
      web.action("Team Member", (viewer, form) =>
        Effect.gen(function*() {
          const id = yield* eventId
          if (!invitations.configured) return yield* notConfigured(viewer, id, 409)
          const composed = composeFormOf(form)
          const decoded = sendInputOf(composed)
          if (Either.isLeft(decoded)) return yield* compose(viewer, id, composed, errorsOf(issuesOfParse(decoded.left), composed), 400)
          const audience: Audience = decoded.right.personIds !== undefined
            ? { personIds: decoded.right.personIds }
            : { statuses: decoded.right.statuses! }
          const previewed = yield* invitations.preview(viewer.caller, id, audience, decoded.right).pipe(
            Effect.map(Either.right),
            Effect.catchTag("InvalidRequest", (error) => Effect.succeed(Either.left(error)))
          )
          if (Either.isLeft(previewed)) return yield* compose(viewer, id, composed, errorsOf(issuesOfInvalid(previewed.left), composed), 400)
          const { recipients, sample, skipped } = previewed.right
          if (recipients.length === 0) {
            return yield* compose(viewer, id, composed, { audience: "No guest has these RSVP statuses. Choose others." }, 400)
          }
          if (sample === undefined) return yield* compose(viewer, id, composed, {}, 409)
          return web.render(PreviewPage({
            site,
            member: viewer.member,
            event: summaryOf((yield* invitations.overview(viewer.caller, id)).event),
            form: composed,
            recipients: recipients.map(recipientOf),
            skipped,
            sample,
            from: Option.getOrElse(invitations.sender, () => ""),
            quota: yield* invitations.quota(viewer.caller)
          }))
        }))
    )

    yield* router.post(
      "/app/events/:id/invitations",
      web.action("Team Member", (viewer, form) =>
        Effect.gen(function*() {
          const id = yield* eventId
          const composed = composeFormOf(form)
          const decoded = sendInputOf(composed)
          if (Either.isLeft(decoded)) return yield* compose(viewer, id, composed, errorsOf(issuesOfParse(decoded.left), composed), 400)
          const sent = yield* invitations.send(viewer.caller, id, decoded.right).pipe(Effect.either)
          if (Either.isLeft(sent)) {
            const error = sent.left
            switch (error._tag) {
              case "EmailNotConfigured":
                return yield* notConfigured(viewer, id, 409)
              case "Conflict":
                return yield* compose(viewer, id, composed, {}, 409)
              case "InvalidRequest":
                return yield* compose(viewer, id, composed, errorsOf(issuesOfInvalid(error), composed), 400)
              case "RateLimited": {
                const { left } = yield* invitations.quota(viewer.caller)
                const wait = waitInWords(error.retryAfter)
                const audience = left === 0
                  ? `The daily email limit is reached: no invitation can be sent now. Try again in ${wait}.`
                  : `The daily email limit does not allow these invitations now: only ${plural(left, "email")} ${
                    left === 1 ? "is" : "are"
                  } left. Send to fewer guests, or try again in ${wait}.`
                return yield* Effect.map(compose(viewer, id, composed, { audience }, 429), HttpServerResponse.setHeader("retry-after", String(error.retryAfter)))
              }
              case "NotFound":
                return yield* error
            }
          }
          const { queued, skipped } = sent.right
          const skippedNote = skipped === 0 ? "" : ` ${plural(skipped, "guest")} got one in the last ${REINVITE_WINDOW_MINUTES} minutes and ${skipped === 1 ? "was" : "were"} skipped.`
          const said = queued === 0 && skipped === 0
            ? "No invitations queued: no guest matched."
            : `${plural(queued, "invitation")} queued.${queued === 0 ? "" : " They go out in the next moments; this log shows each one."}`
          return yield* web.flashTo(viewer, "success", said + skippedNote, `/app/events/${encodeURIComponent(id)}/invitations`)
        }))
    )
  })
)
