import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as Effect from "effect/Effect"
import { ApiBase } from "../Http/ApiBase.js"
import { AppConfig, type AppConfigShape } from "../Config/AppConfig.js"
import { CurrentSession } from "../Domain/Caller.js"
import { rateKeyOf } from "../Http/ClientAddress.js"
import { currentClient } from "../Http/RequestMeta.js"
import { Auth } from "./Auth.js"
import { AuthApi } from "./Api.js"

/** The client address the lockout counts failures of (as `TRUSTED_PROXIES` lets us see it). */
const clientKey = (config: Pick<AppConfigShape, "trustedProxies">) =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
    Effect.map(currentClient(config, request), (client) => rateKeyOf(client.ip)))

export const AuthHttp = HttpApiBuilder.group(ApiBase.add(AuthApi), "auth", (handlers) =>
  Effect.gen(function*() {
    const auth = yield* Auth
    const config = yield* AppConfig
    return handlers
      .handle("login", ({ payload }) =>
        Effect.flatMap(clientKey(config), (client) => auth.login(payload.email, payload.password, client)))
      .handle("me", () => Effect.flatMap(CurrentSession, auth.me))
  }))
