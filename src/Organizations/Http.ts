import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { ApiBase } from "../Http/ApiBase.js"
import { type Caller, CurrentCaller, CurrentSession } from "../Domain/Caller.js"
import { Invitations, userOfSession } from "./Invitations.js"
import { ApiTokens } from "../Auth/ApiTokens.js"
import { MemberAdded, Members } from "./Members.js"
import { OrganizationsApi } from "./Api.js"

const signedInUser = Effect.flatMap(CurrentSession, userOfSession)

const organizationOf = (caller: Caller) => ({ id: caller.organizationId, slug: caller.organizationSlug, name: caller.organizationSlug })

export const OrganizationsHttp = HttpApiBuilder.group(ApiBase.add(OrganizationsApi), "organization", (handlers) =>
  Effect.gen(function*() {
    const tokens = yield* ApiTokens
    const members = yield* Members
    const invitations = yield* Invitations
    return handlers
      .handle("addMember", ({ payload }) =>
        Effect.gen(function*() {
          const caller = yield* CurrentCaller
          const added = yield* members.add(organizationOf(caller), {
            email: payload.email,
            password: Option.some(payload.password),
            firstName: payload.firstName ?? null,
            lastName: payload.lastName ?? null,
            role: payload.role
          }, caller.userId)
          return MemberAdded.$match(added, {
            Added: ({ userId }) => ({ userId }),
            Invited: ({ expiresAt, inviteUrl }) => ({ status: "invited" as const, inviteUrl, expiresAt })
          })
        }))
      .handle("members", () =>
        Effect.flatMap(CurrentCaller, (caller) => Effect.map(members.list(caller.organizationId), (members) => ({ members }))))
      .handle("changeMemberRole", ({ path, payload }) =>
        Effect.flatMap(CurrentCaller, (caller) => members.changeRole(caller.organizationId, path.userId, payload.role)))
      .handle("removeMember", ({ path }) =>
        Effect.flatMap(CurrentCaller, (caller) =>
          Effect.as(members.remove(caller.organizationId, path.userId), { success: true } as const)))
      .handle("revokeInvitation", ({ path }) =>
        Effect.flatMap(CurrentCaller, (caller) =>
          Effect.as(members.revokeInvitation(caller.organizationId, path.invitationId), { success: true } as const)))
      .handle("invitation", ({ path }) => Effect.flatMap(signedInUser, (userId) => invitations.show(path.token, userId)))
      .handle("acceptInvitation", ({ path }) => Effect.flatMap(signedInUser, (userId) => invitations.accept(path.token, userId)))
      .handle("createToken", ({ payload }) =>
        Effect.flatMap(CurrentCaller, (caller) =>
          Effect.map(tokens.createApiToken(caller.organizationId, payload.name), (created) => ({
            tokenId: created.tokenId,
            name: created.name,
            token: Redacted.value(created.token)
          })))
      )
      .handle("tokens", () =>
        Effect.flatMap(CurrentCaller, (caller) =>
          Effect.map(tokens.apiTokens(caller.organizationId), (tokens) => ({ tokens })))
      )
      .handle("revokeToken", ({ path }) =>
        Effect.flatMap(CurrentCaller, (caller) =>
          Effect.as(tokens.revokeApiToken(caller.organizationId, path.tokenId), { success: true } as const))
      )
  }))
