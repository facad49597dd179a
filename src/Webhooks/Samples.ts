/**
 * Sample notifications, one of each type in the configured variant (`GET /webhook`'s sample, test
 * deliveries): built with the same builders as real ones, which are the notifying features' own
 * (Events, Guests: higher features). Guests answers (Guests/WebhookSamples.ts), and src/Server.ts
 * provides it (ARCHITECTURE.md, "Features").
 */
import * as Context from "effect/Context"
import type { PayloadVariant } from "../Config/AppConfig.js"
import type { WebhookType } from "./Domain.js"

export class Samples extends Context.Tag("Convene/WebhookSamples")<Samples, {
  /** A sample body of `type`. */
  readonly of: (type: WebhookType, variant: PayloadVariant) => unknown
}>() {}
