/**
 * The invitations' share of the outbox's retention (Outbox/Retention.ts): an invitation names its
 * email's delivery, and goes with it.
 */
import * as Effect from "effect/Effect"
import type { DeliveryReferrer } from "../Outbox/Retention.js"
import { EventInvitationsRepo } from "./InvitationsRepo.js"

export const invitationsReferrer = Effect.map(EventInvitationsRepo, (repo): DeliveryReferrer => ({ beforeDeliveries: repo.forgetDeliveries })).pipe(
  Effect.provide(EventInvitationsRepo.Default)
)
