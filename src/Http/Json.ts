import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import type * as Schema from "effect/Schema"
/**
 * A success response built to match its endpoint's success schema, sent as JSON without running
 * the schema's encoder over it. For large responses (guest lists of thousands) the encoder's walk
 * costs more than building the value. Only for schemas whose encoding is the identity (structs,
 * arrays, records, literals, strings, numbers, booleans, null): the type keeps the handler honest,
 * and a test decodes these responses with the declared schemas.
 */
export const jsonAs = <S extends Schema.Schema.Any>(_schema: S, value: Schema.Schema.Type<S>) =>
  HttpServerResponse.unsafeJson(value)
