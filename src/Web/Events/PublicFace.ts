/** What an event's dashboard page says about its public page (PublicAddress.tsx), from the event and the public address. */
import type { Event } from "../../Events/Domain.js"
import { registrationIsOpen } from "../../Events/RegistrationWindow.js"
import type { PublicOrigin } from "../../Runtime/PublicOrigin.js"
import type { Viewer } from "../Kit/Viewer.js"
import type { PublicFace } from "./PublicAddress.js"

export const publicFaceOf = (
  origin: Pick<PublicOrigin, "url">,
  viewer: Viewer,
  event: Event,
  emailConfigured: boolean,
  now: number
): PublicFace => ({
  pageUrl: event.isPublic && event.primarySlug !== null ? origin.url(`/e/${encodeURIComponent(event.primarySlug)}`) : null,
  organizationUrl: origin.url(`/o/${encodeURIComponent(viewer.organization.slug)}`),
  canEdit: viewer.can("Admin"),
  emailConfigured,
  registrationOpenNow: registrationIsOpen({
    isPublic: event.isPublic && event.primarySlug !== null,
    registrationOpen: event.registrationOpen,
    closesAt: event.registrationClosesAt,
    startsAt: event.primaryDate
  }, now)
})
