/** The promise client (index.ts): plain async functions over the Effect client, on the global `fetch`. */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as Effect from "effect/Effect"
import { remember, run } from "./ConveneError.js"
import { type ClientOptions, type ConveneClient, make } from "./EffectClient.js"
import type { GuestRef, GuestUpdate, NewGuest, Payload, UrlParams } from "./Types.js"

/**
 * The promise client: plain async functions over the Effect client, on the global `fetch`.
 * Parameters and answers have the API's types; every failure is a `ConveneError`.
 */
export const createConveneClient = (options: ClientOptions) => {
  const client: ConveneClient = Effect.runSync(
    make({ ...options, transformClient: remember }).pipe(Effect.provide(FetchHttpClient.layer))
  )
  const ids = (values: ReadonlyArray<string>) => values.join(",")
  return {
    persons: {
      /** A page of the active persons, in creation order (`limit` 1 to 100, `skip`). */
      list: (params: Omit<UrlParams<"persons", "list">, "ids"> = {}) => run(client.persons.list({ urlParams: params })),
      /** The persons with these ids (1 to 100), archived ones included; unknown ids are left out. */
      byIds: (personIds: ReadonlyArray<string>) => run(client.persons.list({ urlParams: { ids: ids(personIds) } })),
      search: (params: UrlParams<"persons", "search">) => run(client.persons.search({ urlParams: params })),
      get: (id: string) => run(client.persons.get({ path: { id } })),
      create: (person: Payload<"persons", "create">) => run(client.persons.create({ payload: person })),
      /** Changes the fields given (`personId` is added from `id`). */
      update: (id: string, changes: Omit<Payload<"persons", "update">, "personId">) =>
        run(client.persons.update({ path: { id }, payload: { ...changes, personId: id } as Payload<"persons", "update"> })),
      /** `DELETE /person/{id}`: archives the person. */
      archive: (id: string) => run(client.persons.archive({ path: { id } })),
      unarchive: (id: string) => run(client.persons.unarchive({ path: { id } })),
      /** The active (or, with `archived: true`, the archived) persons as CSV text. */
      exportCsv: (params: UrlParams<"persons", "exportCsv"> = {}) => run(client.persons.exportCsv({ urlParams: params }))
    },
    events: {
      list: (params: UrlParams<"events", "list"> = {}) => run(client.events.list({ urlParams: params })),
      get: (id: string) => run(client.events.get({ path: { id } })),
      create: (event: Payload<"events", "create">) => run(client.events.create({ payload: event })),
      update: (id: string, changes: Payload<"events", "update">) => run(client.events.update({ path: { id }, payload: changes }))
    },
    guests: {
      /** Every guest of the event, in the order they were added. */
      list: (eventId: string) => run(client.guests.list({ path: { id: eventId }, urlParams: {} })),
      /** The guests with these personIds (1 to 100); persons not on the list are left out. */
      byPersonIds: (eventId: string, personIds: ReadonlyArray<string>) =>
        run(client.guests.list({ path: { id: eventId }, urlParams: { personIds: ids(personIds) } })),
      search: (eventId: string, params: UrlParams<"guests", "search">) =>
        run(client.guests.search({ path: { id: eventId }, urlParams: params })),
      add: (eventId: string, guests: ReadonlyArray<NewGuest>) =>
        run(client.guests.add({ path: { id: eventId }, payload: { guests } as Payload<"guests", "add"> })),
      update: (eventId: string, guests: ReadonlyArray<GuestUpdate>) =>
        run(client.guests.update({ path: { id: eventId }, payload: { guests } as Payload<"guests", "update"> })),
      remove: (eventId: string, guests: ReadonlyArray<GuestRef>) =>
        run(client.guests.remove({ path: { id: eventId }, payload: { guests } as Payload<"guests", "remove"> }))
    },
    changes: {
      /** A page of the change feed after `after` (docs/integrators.md#syncing-with-the-change-feed). */
      list: (params: UrlParams<"changes", "list"> = {}) => run(client.changes.list({ urlParams: params }))
    },
    /** Any other endpoint: `call((c) => c.webhooks.list({}))` runs an Effect client call as a promise. */
    call: <A, E>(f: (client: ConveneClient) => Effect.Effect<A, E>) => run(f(client))
  }
}

/** The promise client's type. */
export type ConvenePromiseClient = ReturnType<typeof createConveneClient>
