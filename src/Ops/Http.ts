import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import { ApiBase } from "../Http/ApiBase.js"
import { Readiness } from "../Runtime/Readiness.js"
import { OpsApi } from "./Api.js"

export const OpsHttp = HttpApiBuilder.group(ApiBase.add(OpsApi), "ops", (handlers) =>
  Effect.gen(function*() {
    const readiness = yield* Readiness
    return handlers
      .handle("healthz", () => Effect.succeed({ status: "ok" } as const))
      .handle("readyz", () => readiness.check)
  }))
