/**
 * Team settings › Linked Services › API Keys (Admin and above, as `POST/GET/DELETE /api-token`):
 * the same `ApiTokens` service the API uses. A new key is shown once, in the answer to the
 * form that made it, never stored or sent again.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { ApiTokens } from "../../Auth/ApiTokens.js"
import { NotFound } from "../../Domain/Errors.js"
import { confirmed, decodeForm, fieldsOf, pathParams } from "../Kit/Form.js"
import { Web } from "../Kit/Web.js"
import { ApiKeysPage } from "./ApiKeysPage.js"

/** A new key's form: its name, 1 to 100 characters. */
const decodeKey = decodeForm(Schema.Struct({
  name: Schema.String.pipe(
    Schema.minLength(1, { message: () => "Give the key a name." }),
    Schema.maxLength(100, { message: () => "The name must be at most 100 characters." })
  )
}))
const readName = fieldsOf(Schema.Struct({ name: Schema.String }))

export const ApiKeysRoutesLive = HttpApiBuilder.Router.use((router) =>
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
          const decoded = decodeKey(form)
          if (Either.isLeft(decoded)) {
            const tokens = yield* apiTokens.apiTokens(viewer.organization.id)
            const { name } = readName(form)
            return web.render(ApiKeysPage({ site, member: viewer.member, flash: null, tokens, name, error: decoded.left[0]!.message }), 400)
          }
          const { name } = decoded.right
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
          const { tokenId } = yield* pathParams("tokenId")
          const token = (yield* apiTokens.apiTokens(viewer.organization.id)).find((t) => t.tokenId === tokenId)
          // another organization's key is an unknown key, as in the API
          if (token === undefined) return yield* new NotFound({ message: `API key ${tokenId} not found` })
          if (token.revokedAt !== null) return yield* web.flashTo(viewer, "error", `API key “${token.name}” was revoked already.`, "/app/team/api-keys")
          if (!confirmed(form)) {
            return web.confirm(viewer, {
              section: "team",
              title: `Revoke “${token.name}”?`,
              message: "Software using this key stops working at once. This cannot be undone.",
              action: `/app/team/api-keys/${encodeURIComponent(tokenId)}/revoke`,
              confirmLabel: "Revoke the key",
              cancel: "/app/team/api-keys"
            })
          }
          yield* apiTokens.revokeApiToken(viewer.organization.id, tokenId)
          return yield* web.flashTo(viewer, "success", `API key “${token.name}” revoked. It no longer works.`, "/app/team/api-keys")
        }))
    )
  })
)
