/** Types taken from the API definition: its groups and endpoints, and the records clients handle most. */
import type * as HttpApi from "@effect/platform/HttpApi"
import type * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import type * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import type { Api } from "../Api.js"

type Groups = typeof Api extends HttpApi.HttpApi<infer _Id, infer G, infer _E, infer _R> ? G : never
/** The names of the API's groups (`persons`, `events`, `guests`, `changes`, ...). */
export type GroupName = HttpApiGroup.HttpApiGroup.Name<Groups>
type EndpointOf<G extends GroupName, N extends string> = HttpApiEndpoint.HttpApiEndpoint.WithName<
  HttpApiGroup.HttpApiGroup.EndpointsWithName<Groups, G>,
  N
>
/** The names of a group's endpoints. */
export type EndpointName<G extends GroupName> = HttpApiEndpoint.HttpApiEndpoint.Name<
  HttpApiGroup.HttpApiGroup.EndpointsWithName<Groups, G>
>
/** What an endpoint answers on success, as the client gives it. */
export type Success<G extends GroupName, N extends EndpointName<G>> = HttpApiEndpoint.HttpApiEndpoint.Success<EndpointOf<G, N>>
/** An endpoint's request body, as the client takes it. */
export type Payload<G extends GroupName, N extends EndpointName<G>> = HttpApiEndpoint.HttpApiEndpoint.Payload<EndpointOf<G, N>>
/** An endpoint's query parameters, as the client takes them. */
export type UrlParams<G extends GroupName, N extends EndpointName<G>> = HttpApiEndpoint.HttpApiEndpoint.UrlParams<EndpointOf<G, N>>

/** A person as lists answer it (`GET /person`, `GET /person?ids=`). */
export type Person = Success<"persons", "list">["persons"][number]
/** One person with custom fields and event history (`GET /person/{id}`). */
export type PersonDetail = Success<"persons", "get">
/** An event. */
export type Event = Success<"events", "get">
/** A guest: a person on an event's guest list. */
export type Guest = Success<"guests", "list">["guests"][number]
/** A page of the change feed, and one change (docs/integrators.md#syncing-with-the-change-feed). */
export type ChangesPage = Success<"changes", "list">
export type Change = ChangesPage["changes"][number]

/** Guest-list write items, as `POST`, `PUT` and `DELETE /event/{id}/guestlist` take them. */
export type NewGuest = Payload<"guests", "add">["guests"][number]
export type GuestUpdate = Payload<"guests", "update">["guests"][number]
export type GuestRef = Payload<"guests", "remove">["guests"][number]
