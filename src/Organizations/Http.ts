import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import { Api } from "../Api.js"
import { CurrentCaller } from "../Domain/Caller.js"
import { Organizations } from "./Organizations.js"

export const OrganizationsHttp = HttpApiBuilder.group(Api, "organization", (handlers) =>
  Effect.gen(function*() {
    const organizations = yield* Organizations
    return handlers
      .handle("addMember", ({ payload }) =>
        Effect.gen(function*() {
          const caller = yield* CurrentCaller
          const organization = { id: caller.organizationId, slug: caller.organizationSlug, name: caller.organizationSlug }
          const userId = yield* organizations.addMember(organization, {
            email: payload.email,
            password: payload.password,
            firstName: payload.firstName ?? null,
            lastName: payload.lastName ?? null,
            role: payload.role
          })
          return { userId }
        }))
      .handle("members", () =>
        Effect.flatMap(CurrentCaller, (caller) =>
          Effect.map(organizations.members(caller.organizationId), (members) => ({ members })))
      )
      .handle("createToken", ({ payload }) =>
        Effect.flatMap(CurrentCaller, (caller) =>
          Effect.map(organizations.createApiToken(caller.organizationId, payload.name), (created) => ({
            tokenId: created.tokenId,
            name: created.name,
            token: Redacted.value(created.token)
          })))
      )
      .handle("tokens", () =>
        Effect.flatMap(CurrentCaller, (caller) =>
          Effect.map(organizations.apiTokens(caller.organizationId), (tokens) => ({ tokens })))
      )
      .handle("revokeToken", ({ path }) =>
        Effect.flatMap(CurrentCaller, (caller) =>
          Effect.as(organizations.revokeApiToken(caller.organizationId, path.tokenId), { success: true } as const))
      )
  }))
