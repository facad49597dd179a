/** Events in the dashboard: the list and an event's page (ListRoutes), creating and editing (FormRoutes). */
import * as Layer from "effect/Layer"
import { DoorLinks } from "../../Guests/DoorLinks.js"
import { FormRoutesLive } from "./FormRoutes.js"
import { ListRoutesLive } from "./ListRoutes.js"

export const EventsRoutesLive = Layer.mergeAll(ListRoutesLive, FormRoutesLive).pipe(Layer.provide(DoorLinks.Default))
