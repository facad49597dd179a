/** Team settings (Admin and above): Members (MembersRoutes), Linked Services › API Keys (ApiKeysRoutes), Webhooks (WebhooksRoutes). */
import * as Layer from "effect/Layer"
import { ApiKeysRoutesLive } from "./ApiKeysRoutes.js"
import { MembersRoutesLive } from "./MembersRoutes.js"
import { WebhooksRoutesLive } from "./WebhooksRoutes.js"

export const TeamRoutesLive = Layer.mergeAll(MembersRoutesLive, ApiKeysRoutesLive, WebhooksRoutesLive)
