/**
 * CSV request bodies (docs/integrators.md#csv-export-and-import): an import endpoint declares its payload as `CsvBody`, and that
 * declaration is all it takes. Every other body of the API is JSON of at most 1 MiB (Http/JsonBody.ts);
 * the composition finds the endpoints whose payload is `CsvBody` in the API itself (`csvBodyRules`),
 * and the error mapping reads their bodies as text instead, up to 10 MiB, strictly as UTF-8
 * (`csvBodies`, `decodeCsvBytes`).
 */
import * as Headers from "@effect/platform/Headers"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as HttpMethod from "@effect/platform/HttpMethod"
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import type * as AST from "effect/SchemaAST"
import { isUtf8 } from "node:buffer"
import { InvalidRequest } from "../Domain/Errors.js"
import type { BodyRoutes } from "../Http/BodyRules.js"
import { PayloadTooLarge } from "../Http/Errors.js"
import { once, readBoundedBytes } from "../Http/JsonBody.js"

/** 10 MiB. */
export const MAX_CSV_BYTES = 10 * 1024 * 1024
/** Data rows per import (blank rows not counted). */
export const MAX_CSV_ROWS = 50_000
/**
 * Columns of the header row, blank ones included: a contacts export has about 20 and one per custom
 * field. What reading a row costs grows with the header's width, so a wider file is refused whole.
 */
export const MAX_CSV_COLUMNS = 2_000

const CONTENT_TYPE = "text/csv"

/** The payload of an import endpoint: the CSV file itself as the request body. */
export const CsvBody = HttpApiSchema.Text({ contentType: CONTENT_TYPE }).annotations({
  title: "CSV file",
  description: `A UTF-8 CSV file (a BOM is accepted), at most ${MAX_CSV_BYTES} bytes, ${MAX_CSV_ROWS} rows and ${MAX_CSV_COLUMNS} columns, ` +
    "with a header row. Separators: comma, semicolon or tab, found from the header row (or given by a first " +
    "line `sep=;`, as spreadsheets write it). Send the file as the body (`Content-Type: text/csv`), not as a form upload."
})

/** What route detection reads of an `HttpApi`: its endpoints' methods, paths and payloads. */
interface ApiEndpoints {
  readonly groups: Readonly<Record<string, {
    readonly endpoints: Readonly<Record<string, {
      readonly method: string
      readonly path: string
      readonly payloadSchema: Option.Option<{ readonly ast: AST.AST }>
    }>>
  }>>
}
type Endpoint = ApiEndpoints["groups"][string]["endpoints"][string]

/** The 413 of an import endpoint, documented with its own limit. */
export const CsvTooLarge = PayloadTooLarge.Wire.annotations({
  identifier: "CsvPayloadTooLarge",
  description: `The CSV body is over ${MAX_CSV_BYTES} bytes.`
})

const isCsvBody = (endpoint: Endpoint) =>
  Option.match(endpoint.payloadSchema, {
    onNone: () => false,
    onSome: (schema) => HttpApiSchema.getEncoding(schema.ast).contentType === CONTENT_TYPE
  })

/** `/event/:id/guestlist/import` as a pattern for request paths. */
const pathPattern = (path: string) =>
  new RegExp(`^${path.split("/").map((segment) =>
    segment.startsWith(":") ? "[^/]+" : segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
  ).join("/")}/?$`)

export interface CsvRoutes {
  /** Whether a request (method, path without the query) goes to an endpoint that takes `CsvBody`. */
  readonly matches: (method: string, path: string) => boolean
}

/** The endpoints of `api` whose payload is `CsvBody`. */
export const csvBodyRoutes = (api: ApiEndpoints): CsvRoutes => {
  const routes = Object.values(api.groups).flatMap((group) =>
    Object.values(group.endpoints)
      .filter(isCsvBody)
      .map((endpoint) => ({ method: endpoint.method, pattern: pathPattern(endpoint.path) }))
  )
  return {
    matches: (method, path) => routes.some((route) => route.method === method && route.pattern.test(path))
  }
}

/**
 * The request as an endpoint taking `CsvBody` sees it (Csv/CsvBody.ts): a body of any content type
 * but a form upload or a charset other than UTF-8 is read as text, at most `maxBytes` of it, and
 * must be well-formed UTF-8 (400 otherwise, saying where it is not). As with JSON bodies, the text
 * is read once, for the payload and the idempotency fingerprint alike, and the refusals are raised
 * as defects that the error mapping answers as they are.
 */
export const csvBodies = (request: HttpServerRequest.HttpServerRequest, maxBytes: number): HttpServerRequest.HttpServerRequest => {
  if (!HttpMethod.hasBody(request.method)) return request
  const refused = refusedContentType(request.headers["content-type"])
  // the framework reads a body as text when its content type starts with `text/`
  const base = request.modify({ headers: Headers.set(request.headers, "content-type", "text/csv") })
  const read = refused !== undefined
    ? Effect.die(refused)
    : Effect.flatMap(Effect.orDie(readBoundedBytes(request, maxBytes, "csv")), (bytes) =>
      Either.match(decodeCsvBytes(bytes), { onLeft: Effect.die, onRight: Effect.succeed }))
  const text = once(read)
  return Object.create(base, {
    text: { get: () => text }
  })
}

/** The body rules (Http/BodyRules.ts) of the endpoints of `api` that take `CsvBody`: text of at most `MAX_CSV_BYTES`. */
export const csvBodyRules = (api: ApiEndpoints): BodyRoutes => {
  const routes = csvBodyRoutes(api)
  const rule = { maxBytes: MAX_CSV_BYTES, read: csvBodies }
  return (method, path) => routes.matches(method, path) ? rule : undefined
}

/**
 * A content type an import refuses at once: a form upload (the file must be the body itself) or a
 * charset other than UTF-8. Any other type is read as CSV, as JSON endpoints read any body as JSON
 * (`curl --data-binary` sends `application/x-www-form-urlencoded`, Windows browsers `application/vnd.ms-excel`).
 */
export const refusedContentType = (contentType: string | undefined): InvalidRequest | undefined => {
  if (contentType === undefined) return undefined
  const type = contentType.toLowerCase()
  if (type.startsWith("multipart/")) {
    return new InvalidRequest({
      message: "Send the CSV file itself as the request body (Content-Type: text/csv), not as a multipart form upload"
    })
  }
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/.exec(type)?.[1]
  if (charset !== undefined && !["utf-8", "utf8", "us-ascii"].includes(charset)) {
    return new InvalidRequest({ message: `The CSV must be UTF-8 (the request says charset=${charset}): save it as "CSV UTF-8"` })
  }
  return undefined
}

/** The offset of the first byte that does not belong to a well-formed UTF-8 sequence, or -1. */
export const firstInvalidUtf8 = (bytes: Uint8Array): number => {
  let i = 0
  while (i < bytes.length) {
    const b = bytes[i]!
    if (b < 0x80) {
      i++
      continue
    }
    const need = b >= 0xc2 && b <= 0xdf ? 1 : b >= 0xe0 && b <= 0xef ? 2 : b >= 0xf0 && b <= 0xf4 ? 3 : 0
    if (need === 0) return i
    const min = need === 1 ? 0x80 : need === 2 ? 0x800 : 0x10000
    let code = b & (0x3f >> need)
    for (let k = 1; k <= need; k++) {
      const next = bytes[i + k]
      if (next === undefined || (next & 0xc0) !== 0x80) return i
      code = (code << 6) | (next & 0x3f)
    }
    // overlong forms, UTF-16 surrogates and code points past U+10FFFF are not UTF-8
    if (code < min || (code >= 0xd800 && code <= 0xdfff) || code > 0x10ffff) return i
    i += need + 1
  }
  return -1
}

const lineAt = (bytes: Uint8Array, offset: number) => {
  let line = 1
  for (let i = 0; i < offset; i++) if (bytes[i] === 0x0a) line++
  return line
}

/**
 * The body as text, or a 400 saying why it is not UTF-8: a UTF-16 file (what some spreadsheets
 * save as "Unicode text"), or the line of the first byte that is not UTF-8 (a Latin-1 or
 * Windows-1252 file, a spreadsheet's binary format). A UTF-8 BOM is kept (the reader skips it).
 */
export const decodeCsvBytes = (bytes: Uint8Array): Either.Either<string, InvalidRequest> => {
  if (bytes.length >= 2 && ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff))) {
    return Either.left(new InvalidRequest({ message: "The CSV is UTF-16 encoded: save it as \"CSV UTF-8\" and send it again" }))
  }
  if (!isUtf8(bytes)) {
    const offset = firstInvalidUtf8(bytes)
    return Either.left(new InvalidRequest({
      message: `The CSV is not valid UTF-8 (line ${lineAt(bytes, Math.max(offset, 0))}, byte ${offset + 1}): ` +
        "save it as \"CSV UTF-8\" and send it again"
    }))
  }
  return Either.right(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8"))
}
