/**
 * An event's guests in the dashboard (docs/integrators.md#the-dashboard): the list and its
 * selection (ListRoutes), one guest (GuestRoutes), one registration's approval (ApprovalRoutes),
 * adding guests (AddRoutes), the door (DoorRoutes) and its links (DoorLinkRoutes), and the list as
 * a CSV file (ImportRoutes).
 */
import * as Layer from "effect/Layer"
import { DoorLinks } from "../../Guests/DoorLinks.js"
import { DoorList } from "../../Guests/DoorList.js"
import { Tickets } from "../../Guests/Tickets.js"
import { ImportDrafts } from "../Imports/ImportDrafts.js"
import { AddRoutesLive } from "./AddRoutes.js"
import { ApprovalRoutesLive } from "./ApprovalRoutes.js"
import { DoorLinkRoutesLive } from "./DoorLinkRoutes.js"
import { DoorRoutesLive } from "./DoorRoutes.js"
import { GuestRoutesLive } from "./GuestRoutes.js"
import { ImportRoutesLive } from "./ImportRoutes.js"
import { ListRoutesLive } from "./ListRoutes.js"

export const GuestsRoutesLive = Layer.mergeAll(
  ListRoutesLive,
  GuestRoutesLive,
  ApprovalRoutesLive,
  AddRoutesLive,
  DoorRoutesLive,
  DoorLinkRoutesLive,
  ImportRoutesLive
).pipe(
  // the ticket service over the same (memoized) guest-list, event and outbox layers as the API's
  Layer.provide(Tickets.Default),
  Layer.provide(DoorList.Default),
  Layer.provide(DoorLinks.Default),
  Layer.provide(ImportDrafts.Default)
)
