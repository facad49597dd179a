import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import { ApiBase } from "../Http/ApiBase.js"
import { CurrentCaller } from "../Domain/Caller.js"
import { EventUpdates } from "../Guests/EventUpdates.js"
import { Events } from "./Events.js"
import { EventsApi } from "./Api.js"

export const EventsHttp = HttpApiBuilder.group(ApiBase.add(EventsApi), "events", (handlers) =>
  Effect.gen(function*() {
    const events = yield* Events
    // a PATCH that raises or disables the capacity promotes the waitlist in its transaction (Guests/EventUpdates.ts)
    const updates = yield* EventUpdates
    return handlers
      .handle("list", ({ urlParams }) => Effect.flatMap(CurrentCaller, (caller) => events.list(caller, urlParams)))
      .handle("listAlias", ({ urlParams }) => Effect.flatMap(CurrentCaller, (caller) => events.list(caller, urlParams)))
      .handle("create", ({ payload }) => Effect.flatMap(CurrentCaller, (caller) => events.create(caller, payload)))
      .handle("get", ({ path }) => Effect.flatMap(CurrentCaller, (caller) => events.get(caller, path.id)))
      .handle("update", ({ path, payload }) =>
        Effect.flatMap(CurrentCaller, (caller) => Effect.map(updates.update(caller, path.id, payload), (r) => r.event))
      )
  }))
