import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import { ApiBase } from "../Http/ApiBase.js"
import { CurrentCaller } from "../Domain/Caller.js"
import { Payments } from "./Payments.js"
import { PaymentsApi } from "./Api.js"

export const PaymentsHttp = HttpApiBuilder.group(ApiBase.add(PaymentsApi), "payments", (handlers) =>
  Effect.gen(function*() {
    const payments = yield* Payments
    return handlers
      .handle("purchase", ({ path, payload }) =>
        Effect.flatMap(CurrentCaller, (caller) => payments.purchase(caller, path.id, payload))
      )
      .handle("refund", ({ path, payload }) =>
        Effect.flatMap(CurrentCaller, (caller) => payments.refund(caller, path.id, path.purchaseId, payload))
      )
      .handle("dispute", ({ path }) =>
        Effect.flatMap(CurrentCaller, (caller) => payments.dispute(caller, path.id, path.purchaseId))
      )
  }))
