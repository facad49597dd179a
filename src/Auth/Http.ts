import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import { Api } from "../Api.js"
import { CurrentSession } from "../Domain/Caller.js"
import { Auth } from "./Auth.js"

export const AuthHttp = HttpApiBuilder.group(Api, "auth", (handlers) =>
  Effect.gen(function*() {
    const auth = yield* Auth
    return handlers
      .handle("login", ({ payload }) => auth.login(payload.email, payload.password))
      .handle("me", () => Effect.flatMap(CurrentSession, auth.me))
  }))
