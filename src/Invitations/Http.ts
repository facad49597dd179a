import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import { ApiBase } from "../Http/ApiBase.js"
import { CurrentCaller } from "../Domain/Caller.js"
import { EmailNotConfigured } from "../Email/EmailNotConfigured.js"
import { EventInvitations } from "./Invitations.js"
import { InvitationsApi } from "./Api.js"

export const InvitationsHttp = HttpApiBuilder.group(ApiBase.add(InvitationsApi), "invitations", (handlers) =>
  Effect.gen(function*() {
    const invitations = yield* EventInvitations
    return handlers
      .handle("send", ({ path, payload }) =>
        Effect.flatMap(CurrentCaller, (caller) => invitations.send(caller, path.id, payload)).pipe(
          Effect.catchTag("EmailNotConfigured", (error) => Effect.succeed(EmailNotConfigured.response(error)))
        ))
      .handle("list", ({ path, urlParams }) => Effect.flatMap(CurrentCaller, (caller) => invitations.list(caller, path.id, urlParams)))
  }))
