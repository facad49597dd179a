/**
 * The organizers' dashboard (docs/integrators.md#the-dashboard): server-rendered pages under `/app`,
 * in the same process, over the same services as the API. One folder for each area, as the API's
 * features (ARCHITECTURE.md, "Where the dashboard's pages go"), each with its routes and its page
 * templates; what every page uses is the kit (Kit/).
 */
import * as Layer from "effect/Layer"
import { Sessions } from "../Auth/Sessions.js"
import { AccountRoutesLive } from "./Account/Routes.js"
import { ContactsRoutesLive } from "./Contacts/Routes.js"
import { EventsRoutesLive } from "./Events/Routes.js"
import { GuestsRoutesLive } from "./Guests/Routes.js"
import { InvitationsRoutesLive } from "./Invitations/Routes.js"
import { Assets } from "./Kit/Assets.js"
import { KitRoutesLive } from "./Kit/Routes.js"
import { Web } from "./Kit/Web.js"
import { TeamRoutesLive } from "./Team/Routes.js"

/** What every page (the dashboard's and the guests' RSVP page) renders and checks with. */
export const WebLive = Web.Default.pipe(Layer.provideMerge(Layer.mergeAll(Sessions.Default, Assets.Default)))

export const DashboardLive = Layer.mergeAll(
  KitRoutesLive,
  AccountRoutesLive,
  EventsRoutesLive,
  GuestsRoutesLive,
  InvitationsRoutesLive,
  ContactsRoutesLive,
  TeamRoutesLive
).pipe(Layer.provide(WebLive))
