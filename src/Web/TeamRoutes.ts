/**
 * Team settings › Linked Services › API Keys (Admin and above, as `POST/GET/DELETE /api-token`):
 * the same `ApiTokens` service the API uses. A new key is shown once, in the answer to the
 * form that made it, never stored or sent again.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import { ApiTokens } from "../Auth/ApiTokens.js"
import { NotFound } from "../Domain/Errors.js"
import { ApiKeysPage } from "./Pages/Team.js"
import { ConfirmPage } from "./Kit/Confirm.js"
import { Web } from "./Web.js"

export const TeamRoutesLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const web = yield* Web
    const apiTokens = yield* ApiTokens
    const { site } = web

    yield* router.get("/app/team", Effect.succeed(web.redirect("/app/team/members")))

    yield* router.get(
      "/app/team/api-keys",
      web.page("Admin", (viewer) =>
        Effect.map(apiTokens.apiTokens(viewer.organization.id), (tokens) =>
          web.render(ApiKeysPage({ site, member: viewer.member, flash: viewer.flash, tokens }))))
    )

    yield* router.post(
      "/app/team/api-keys",
      web.action("Admin", (viewer, form) =>
        Effect.gen(function*() {
          const name = form.get("name")
          if (name === "" || name.length > 100) {
            const tokens = yield* apiTokens.apiTokens(viewer.organization.id)
            const error = name === "" ? "Give the key a name." : "The name must be at most 100 characters."
            return web.render(ApiKeysPage({ site, member: viewer.member, flash: null, tokens, name, error }), 400)
          }
          const created = yield* apiTokens.createApiToken(viewer.organization.id, name)
          const tokens = yield* apiTokens.apiTokens(viewer.organization.id)
          return web.render(ApiKeysPage({
            site,
            member: viewer.member,
            flash: { kind: "success", message: `API key “${name}” created.` },
            tokens,
            created: { name: created.name, token: Redacted.value(created.token) }
          }))
        }))
    )

    yield* router.post(
      "/app/team/api-keys/:tokenId/revoke",
      web.action("Admin", (viewer, form) =>
        Effect.gen(function*() {
          const { tokenId = "" } = yield* HttpRouter.params
          const token = (yield* apiTokens.apiTokens(viewer.organization.id)).find((t) => t.tokenId === tokenId)
          // another organization's key is an unknown key, as in the API
          if (token === undefined) return yield* new NotFound({ message: `API key ${tokenId} not found` })
          if (token.revokedAt !== null) {
            yield* web.flash(viewer, "error", `API key “${token.name}” was revoked already.`)
            return web.redirect("/app/team/api-keys")
          }
          if (form.get("confirm") !== "yes") {
            return web.render(ConfirmPage({
              section: "team",
              site,
              member: viewer.member,
              title: `Revoke “${token.name}”?`,
              message: "Software using this key stops working at once. This cannot be undone.",
              action: site.href(`/app/team/api-keys/${encodeURIComponent(tokenId)}/revoke`),
              confirmLabel: "Revoke the key",
              cancel: site.href("/app/team/api-keys")
            }))
          }
          yield* apiTokens.revokeApiToken(viewer.organization.id, tokenId)
          yield* web.flash(viewer, "success", `API key “${token.name}” revoked. It no longer works.`)
          return web.redirect("/app/team/api-keys")
        }))
    )
  })
)
