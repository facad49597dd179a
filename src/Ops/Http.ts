import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { Api } from "../Api.js"
import { Readiness } from "./Readiness.js"

export const OpsHttp = HttpApiBuilder.group(Api, "ops", (handlers) =>
  Effect.gen(function*() {
    const readiness = yield* Readiness
    return handlers
      .handle("healthz", () => Effect.succeed({ status: "ok" } as const))
      .handle("readyz", () => readiness.check)
  }))
