/**
 * The `Idempotent` middleware of write endpoints, as the API declares it: its tag and the errors it
 * can answer (docs/integrators.md#idempotency-keys). It runs after the access middleware (it is
 * declared before it on each endpoint: HttpApi runs endpoint middleware last-declared first), so
 * keys are kept per authenticated caller and organization, and a refused request reserves nothing.
 *
 * This file holds only the declaration, so the API definition (and the typed client built from it,
 * `src/Client`) carries no server code; the implementation over the key store is `IdempotentLive.ts`.
 */
import * as HttpApiMiddleware from "@effect/platform/HttpApiMiddleware"
import * as Schema from "effect/Schema"
import { Conflict, IdempotencyKeyReused, InvalidRequest } from "../Domain/Errors.js"

export class Idempotent extends HttpApiMiddleware.Tag<Idempotent>()("Convene/Idempotent", {
  failure: Schema.Union(InvalidRequest.Wire, Conflict.Wire, IdempotencyKeyReused.Wire)
}) {}
