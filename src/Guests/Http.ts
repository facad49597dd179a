import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { Api } from "../Api.js"
import { CurrentCaller } from "../Domain/Caller.js"
import { GuestLists } from "./GuestLists.js"

export const GuestsHttp = HttpApiBuilder.group(Api, "guests", (handlers) =>
  Effect.gen(function*() {
    const guestLists = yield* GuestLists
    return handlers
      .handle("list", ({ path }) => Effect.flatMap(CurrentCaller, (caller) => guestLists.list(caller, path.id)))
      .handle("search", ({ path, urlParams }) =>
        Effect.flatMap(CurrentCaller, (caller) => guestLists.search(caller, path.id, urlParams))
      )
      .handle("add", ({ path, payload }) =>
        Effect.flatMap(CurrentCaller, (caller) =>
          Effect.map(guestLists.add(caller, path.id, payload.guests), (change) => ({ guests: change.guests })))
      )
      .handle("update", ({ path, payload }) =>
        Effect.flatMap(CurrentCaller, (caller) =>
          Effect.map(guestLists.update(caller, path.id, payload.guests), (change) => ({ guests: change.guests })))
      )
      .handle("remove", ({ path, payload }) =>
        Effect.flatMap(CurrentCaller, (caller) =>
          Effect.as(guestLists.remove(caller, path.id, payload.guests), { success: true } as const))
      )
  }))
