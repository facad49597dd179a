/** The signed-in user's own pages: signing in and out and the organization switcher (SignInRoutes), Account (AccountRoutes), an invitation link (InvitationRoutes). */
import * as Layer from "effect/Layer"
import { AccountPageRoutesLive } from "./AccountRoutes.js"
import { InvitationRoutesLive } from "./InvitationRoutes.js"
import { SignInRoutesLive } from "./SignInRoutes.js"

export const AccountRoutesLive = Layer.mergeAll(SignInRoutesLive, AccountPageRoutesLive, InvitationRoutesLive)
