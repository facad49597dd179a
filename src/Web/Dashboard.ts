/**
 * The organizers' dashboard (docs/integrators.md#the-dashboard): server-rendered pages under `/app`, in the same
 * process, over the same services as the API.
 */
import * as Layer from "effect/Layer"
import { Sessions } from "../Auth/Sessions.js"
import { Assets } from "./Kit/Assets.js"
import { ContactsRoutesLive } from "./Contacts/Routes.js"
import { CoreRoutesLive } from "./CoreRoutes.js"
import { AccountRoutesLive } from "./AccountRoutes.js"
import { EventsRoutesLive } from "./Events/Routes.js"
import { FormRoutesLive as EventFormRoutesLive } from "./Events/FormRoutes.js"
import { GuestsRoutesLive } from "./Guests/Routes.js"
import { InvitationsRoutesLive } from "./Invitations/Routes.js"
import { MembersRoutesLive } from "./MembersRoutes.js"
import { TeamRoutesLive } from "./TeamRoutes.js"
import { WebhooksRoutesLive } from "./WebhooksRoutes.js"
import { Web } from "./Web.js"

/** What every page (the dashboard's and the guests' RSVP page) renders and checks with. */
export const WebLive = Web.Default.pipe(Layer.provideMerge(Layer.mergeAll(Sessions.Default, Assets.Default)))

export const DashboardLive = Layer.mergeAll(
  CoreRoutesLive,
  EventsRoutesLive,
  EventFormRoutesLive,
  GuestsRoutesLive,
  InvitationsRoutesLive,
  ContactsRoutesLive,
  MembersRoutesLive,
  TeamRoutesLive,
  WebhooksRoutesLive,
  AccountRoutesLive
).pipe(Layer.provide(WebLive))
