import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import { ApiBase } from "../Http/ApiBase.js"
import { CurrentCaller } from "../Domain/Caller.js"
import { jsonAs } from "../Http/Json.js"
import { Changes } from "./Changes.js"
import { ChangesPage } from "./Domain.js"
import { ChangesApi } from "./Api.js"

export const ChangesHttp = HttpApiBuilder.group(ApiBase.add(ChangesApi), "changes", (handlers) =>
  Effect.gen(function*() {
    const changes = yield* Changes
    // pages of a thousand changes are sent without a pass of the schema encoder (Http/Json.ts)
    return handlers.handle("list", ({ urlParams }) =>
      Effect.flatMap(CurrentCaller, (caller) => Effect.map(changes.feed(caller, urlParams), (page) => jsonAs(ChangesPage, page))))
  }))
