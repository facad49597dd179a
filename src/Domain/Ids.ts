import * as Effect from "effect/Effect"
import { randomBytes, randomUUID } from "node:crypto"

/** Identifiers and secrets: a service, so tests can make them deterministic. */
export class Ids extends Effect.Service<Ids>()("Convene/Ids", {
  succeed: {
    /** A public identifier for a stored record. */
    uuid: Effect.sync(() => randomUUID()),
    /** `bytes` random bytes as base64url: tokens, invite links, webhook secrets. */
    secret: (bytes: number) => Effect.sync(() => randomBytes(bytes).toString("base64url"))
  }
}) {}
