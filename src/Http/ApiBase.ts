/**
 * The API every group is served in: its id, and the errors any endpoint can answer (an invalid
 * request, an unknown route or id, an internal error). `src/Api.ts` joins every feature's group
 * onto it; a feature's handlers (`<Feature>/Http.ts`) are built against it with their own group
 * alone (`ApiBase.add(ChangesApi)`), so that no feature imports the root API. `HttpApiBuilder.group`
 * only reads the named group of the API it is given; the server encodes errors with the root API
 * it finds in its context (`HttpApiBuilder.api(Api)` in src/Server.ts).
 */
import * as HttpApi from "@effect/platform/HttpApi"
import { InvalidRequest, NotFound } from "../Domain/Errors.js"
import { Internal } from "./Errors.js"

export const ApiBase = HttpApi.make("convene")
  .addError(InvalidRequest.Wire)
  .addError(NotFound.Wire)
  .addError(Internal.Wire)
