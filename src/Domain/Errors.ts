/**
 * The errors services fail with. Every error body is `{ message, code, issues? }`
 * (docs/integrators.md#errors): each error is a tagged class in the program and travels over the
 * wire through its `Wire` schema, which is what endpoints declare, what the server encodes and what
 * `/openapi.json` documents. Errors only the HTTP edge raises (an oversize body, a defect) are in
 * Http/Errors.ts.
 */
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
export class Issue extends Schema.Class<Issue>("ErrorIssue")({
  path: Schema.String,
  message: Schema.String
}) {}

const Issues = Schema.Array(Issue)

interface ApiErrorShape {
  readonly message: string
  readonly issues?: ReadonlyArray<Issue> | undefined
}

/** The wire schema of an error class: its JSON body, its `code` and its status. */
export const wire = <Self extends ApiErrorShape, Code extends string>(
  self: Schema.Schema<Self, any> & { readonly identifier: string },
  options: {
    readonly code: Code
    readonly status: number
    readonly description: string
    readonly make: (body: ApiErrorShape) => Self
  }
) =>
  Schema.transform(
    Schema.Struct({
      message: Schema.String,
      code: Schema.Literal(options.code),
      issues: Schema.optionalWith(Issues, { exact: true })
    }),
    Schema.typeSchema(self),
    {
      strict: true,
      decode: (body) => options.make(body),
      encode: (error) =>
        error.issues === undefined || error.issues.length === 0
          ? { message: error.message, code: options.code }
          : { message: error.message, code: options.code, issues: error.issues }
    }
  ).annotations(HttpApiSchema.annotations({
    identifier: self.identifier,
    description: options.description,
    status: options.status
  }))

/** The fields every error carries. */
export const fields = { message: Schema.String, issues: Schema.optional(Issues) }

/** 400: malformed JSON, schema violations, bad parameters, oversize batches. */
export class InvalidRequest extends Schema.TaggedError<InvalidRequest>()("InvalidRequest", fields) {
  static readonly Wire = wire(InvalidRequest, {
    code: "invalid_request",
    status: 400,
    description: "The request is malformed or violates the schema; `issues` point at the offending fields.",
    make: (body) => new InvalidRequest(body)
  })
  static at(path: string, message: string): InvalidRequest {
    return new InvalidRequest({ message: `${path}: ${message}`, issues: [new Issue({ path, message })] })
  }
}

/** 401: missing, unknown, revoked or expired credentials. */
export class Unauthorized extends Schema.TaggedError<Unauthorized>()("Unauthorized", fields) {
  static readonly Wire = wire(Unauthorized, {
    code: "unauthorized",
    status: 401,
    description: "Missing, unknown, revoked or expired credentials.",
    make: (body) => new Unauthorized(body)
  })
}

/** 403: valid credentials, insufficient role or foreign `organizationSlug`. */
export class Forbidden extends Schema.TaggedError<Forbidden>()("Forbidden", fields) {
  static readonly Wire = wire(Forbidden, {
    code: "forbidden",
    status: 403,
    description: "The caller's role does not allow this, or the organization is not theirs.",
    make: (body) => new Forbidden(body)
  })
}

/** 404: unknown route, unknown id, or an id of another organization. */
export class NotFound extends Schema.TaggedError<NotFound>()("NotFound", fields) {
  static readonly Wire = wire(NotFound, {
    code: "not_found",
    status: 404,
    description: "Unknown route or unknown identifier.",
    make: (body) => new NotFound(body)
  })
}

/** 409: a uniqueness rule or a state rule refuses the change. */
export class Conflict extends Schema.TaggedError<Conflict>()("Conflict", fields) {
  static readonly Wire = wire(Conflict, {
    code: "conflict",
    status: 409,
    description: "The change conflicts with existing data or a request still in progress.",
    make: (body) => new Conflict(body)
  })
}

/** 410: a change-feed cursor older than the feed keeps (docs/integrators.md#syncing-with-the-change-feed). */
export class CursorExpired extends Schema.TaggedError<CursorExpired>()("CursorExpired", fields) {
  static readonly Wire = wire(CursorExpired, {
    code: "cursor_expired",
    status: 410,
    description: "The cursor is older than the changes the feed keeps (CHANGES_RETENTION): start again without `after`.",
    make: (body) => new CursorExpired(body)
  })
}

/** 422: an `Idempotency-Key` reused with a different request. */
export class IdempotencyKeyReused extends Schema.TaggedError<IdempotencyKeyReused>()("IdempotencyKeyReused", fields) {
  static readonly Wire = wire(IdempotencyKeyReused, {
    code: "idempotency_key_reused",
    status: 422,
    description: "The Idempotency-Key was first used with a different method, path or body.",
    make: (body) => new IdempotencyKeyReused(body)
  })
}

/** 429: the caller's bucket is empty, or logins for an email are locked. */
export class RateLimited extends Schema.TaggedError<RateLimited>()("RateLimited", {
  ...fields,
  retryAfter: Schema.optionalWith(Schema.Int, { default: () => 1 })
}) {
  static readonly Wire = wire(RateLimited, {
    code: "rate_limited",
    status: 429,
    description: "Too many requests; the `Retry-After` header says how many seconds to wait.",
    make: (body) => new RateLimited({ ...body, retryAfter: retryAfterOf(body.message) })
  })
  static after(seconds: number): RateLimited {
    return new RateLimited({ message: `Too Many Requests. Retry after ${seconds} seconds.`, retryAfter: seconds })
  }
}

const retryAfterOf = (message: string): number => Number(/(\d+) seconds/.exec(message)?.[1] ?? 1)

/** 503: `/readyz` while the database is unreachable or the server is shutting down. */
export class Unavailable extends Schema.TaggedError<Unavailable>()("Unavailable", fields) {
  static readonly Wire = wire(Unavailable, {
    code: "unavailable",
    status: 503,
    description: "The database is unreachable, or the server is shutting down.",
    make: (body) => new Unavailable(body)
  })
}

/**
 * What a schema issue says, without the offending value: a client sent it and knows it, and the
 * value may be a password or a token that must not travel back or into logs.
 */
const withoutValue = (message: string) => message.replace(/,\s*actual[\s\S]*$/, "").trim()

/** A 400 listing every schema issue, paths joined with dots (`guests.3.personId`). */
export const invalidFromIssues = (
  issues: ReadonlyArray<{ readonly path: ReadonlyArray<PropertyKey>; readonly message: string }>
): InvalidRequest => {
  const mapped = issues.map((issue) => new Issue({ path: issue.path.map(String).join("."), message: withoutValue(issue.message) }))
  const first = mapped[0]
  return new InvalidRequest({
    message: first === undefined ? "Invalid request" : first.path === "" ? first.message : `${first.path}: ${first.message}`,
    issues: mapped
  })
}

export const fromParseError = (error: ParseResult.ParseError): InvalidRequest =>
  invalidFromIssues(ParseResult.ArrayFormatter.formatErrorSync(error))
