import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import { ApiBase } from "../Http/ApiBase.js"
import { CurrentCaller } from "../Domain/Caller.js"
import { WebhooksApi } from "./Api.js"
import { DeliveryLog } from "./DeliveryLog.js"
import { Registrations } from "./Registrations.js"

export const WebhooksHttp = HttpApiBuilder.group(ApiBase.add(WebhooksApi), "webhooks", (handlers) =>
  Effect.gen(function*() {
    const registrations = yield* Registrations
    const log = yield* DeliveryLog
    return handlers
      .handle("register", ({ payload }) => Effect.flatMap(CurrentCaller, (caller) => registrations.register(caller, payload)))
      .handle("unregister", ({ payload }) =>
        Effect.flatMap(CurrentCaller, (caller) => registrations.unregister(caller, payload))
      )
      .handle("sample", () => registrations.sample)
      .handle("test", ({ payload }) => Effect.flatMap(CurrentCaller, (caller) => registrations.sendTest(caller, payload)))
      .handle("deliveries", ({ urlParams }) =>
        Effect.flatMap(CurrentCaller, (caller) => log.deliveries(caller, urlParams))
      )
      .handle("retry", ({ path }) => Effect.flatMap(CurrentCaller, (caller) => log.retry(caller, path.deliveryId)))
  }))
