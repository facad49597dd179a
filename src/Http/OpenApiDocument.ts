/**
 * Finishing touches to the generated OpenAPI document:
 * - the access middleware is keyed on `x-api-key`, but the same handler accepts
 *   `Authorization: Bearer` with an `organizationSlug` header, so both appear as alternatives;
 * - the framework's own decode-error schema never reaches a client (the error mapping turns it
 *   into `InvalidRequest`), so it is dropped from responses and components;
 * - operations behind the `Idempotent` middleware (those that can answer 422) list the
 *   `Idempotency-Key` header the middleware reads.
 */
const BEARER = "bearer"
const DECODE_ERROR_REF = "#/components/schemas/HttpApiDecodeError"

type Json = Record<string, any>

const withoutDecodeError = (content: Json | undefined) => {
  const schema = content?.["application/json"]?.schema
  if (schema?.anyOf) {
    const rest = (schema.anyOf as Array<Json>).filter((s) => s["$ref"] !== DECODE_ERROR_REF)
    content!["application/json"].schema = rest.length === 1 ? rest[0] : { ...schema, anyOf: rest }
  }
}

export const completeOpenApi = (spec: Json): Json => {
  spec["openapi"] = "3.1.0"
  spec["components"] ??= {}
  spec["components"]["securitySchemes"] ??= {}
  spec["components"]["securitySchemes"][BEARER] = {
    type: "http",
    scheme: "bearer",
    description: "A login access token from POST /login. Send the `organizationSlug` header too (except on GET /me)."
  }
  delete spec["components"]["schemas"]?.["HttpApiDecodeError"]
  for (const item of Object.values(spec["paths"] ?? {}) as Array<Json>) {
    for (const operation of Object.values(item) as Array<Json>) {
      for (const response of Object.values(operation["responses"] ?? {}) as Array<Json>) {
        withoutDecodeError(response["content"])
      }
      if (operation["responses"]?.["422"] !== undefined) {
        operation["parameters"] = [
          ...(operation["parameters"] ?? []),
          {
            name: "Idempotency-Key",
            in: "header",
            required: false,
            description: "1-255 printable ASCII characters. For 24 hours, the same request with the same key " +
              "replays the first answer (with `Idempotent-Replayed: true`) instead of acting again; " +
              "a different request with it gets 422, and 409 while the first is still running.",
            schema: { type: "string", minLength: 1, maxLength: 255, pattern: "^[\\x20-\\x7E]+$" }
          }
        ]
      }
      const security = operation["security"] as Array<Json> | undefined
      if (security?.some((s) => "apiKey" in s)) {
        security.push({ [BEARER]: [] })
        if (operation["operationId"] !== "auth.me") {
          operation["parameters"] = [
            ...(operation["parameters"] ?? []),
            {
              name: "organizationSlug",
              in: "header",
              required: false,
              description: "With a Bearer access token: the organization to act in (required then).",
              schema: { type: "string" }
            }
          ]
        }
      }
    }
  }
  return spec
}
