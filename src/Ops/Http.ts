import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import { Api } from "../Api.js"
import { Readiness } from "../Runtime/Readiness.js"

export const OpsHttp = HttpApiBuilder.group(Api, "ops", (handlers) =>
  Effect.gen(function*() {
    const readiness = yield* Readiness
    return handlers
      .handle("healthz", () => Effect.succeed({ status: "ok" } as const))
      .handle("readyz", () => readiness.check)
  }))
