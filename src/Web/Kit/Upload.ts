/**
 * File uploads of the dashboard (its CSV import's upload page,
 * docs/integrators.md#csv-export-and-import): a `multipart/form-data` form with one file field and a few short text fields (the CSRF token), read whole into memory with a
 * hard bound, and parsed here. The framework's form reader (`Web.readForm`) takes urlencoded forms
 * of 1 MiB only; a CSV file may be 10 MiB (`MAX_CSV_BYTES`).
 *
 * Bounds: the body is at most `MAX_UPLOAD_BYTES` (the file's limit plus room for the form's other
 * parts and the part headers), read until that many bytes and then refused, and must arrive in a
 * CSV import's time (`readBoundedBytes`);
 * at most `MAX_PARTS` parts, part headers of at most `MAX_PART_HEADER_BYTES`, text fields of at
 * most `MAX_TEXT_FIELD_BYTES`; one file part per field name (the first one counts).
 *
 * Routes that take uploads are listed in `isUploadRoute`; their body rule (`uploadBodyRules`, which
 * the composition gives the HTTP error mapping: Http/BodyRules.ts) lets their bodies past the
 * API's 1 MiB limit (the limit here applies instead).
 */
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import * as Effect from "effect/Effect"
import { MAX_CSV_BYTES } from "../../Csv/CsvBody.js"
import type { BodyRoutes } from "../../Http/BodyRules.js"
import { readBoundedBytes } from "../../Http/JsonBody.js"

/** The largest upload body: a 10 MiB file and 64 KiB for the rest of the form. */
export const MAX_UPLOAD_BYTES = MAX_CSV_BYTES + 64 * 1024
export const MAX_PARTS = 16
const MAX_PART_HEADER_BYTES = 8 * 1024
const MAX_TEXT_FIELD_BYTES = 8 * 1024

/**
 * Dashboard routes that take a file upload (POST): the contacts import, and a guest list's import
 * (`/app/events/:id/guests/import`), with or without PUBLIC_BASE_URL's path prefix taken off.
 */
const UPLOAD_ROUTES: ReadonlyArray<RegExp> = [
  /^\/app\/contacts\/import\/?$/,
  /^\/app\/events\/[^/]+\/guests\/import\/?$/
]

/** Whether a request (method, path without query and prefix) goes to a dashboard upload route. */
export const isUploadRoute = (method: string, path: string): boolean =>
  method === "POST" && UPLOAD_ROUTES.some((route) => route.test(path))

/** The upload routes' body rule: they read and bound their own bodies (`readUpload`), up to `MAX_UPLOAD_BYTES`. */
export const uploadBodyRules: BodyRoutes = (method, path) =>
  isUploadRoute(method, path) ? { maxBytes: MAX_UPLOAD_BYTES, read: "own" } : undefined

export interface UploadedFile {
  /** The name the browser gave (no path), "" when none. */
  readonly filename: string
  readonly bytes: Buffer
}

export interface Upload {
  /** A text field, trimmed ("" when absent). */
  readonly field: (name: string) => string
  /** The file sent in this field, if one was chosen (browsers send an empty part otherwise). */
  readonly file: (name: string) => UploadedFile | undefined
}

/** Why an upload was refused, in words for the organizer. */
export type UploadProblem =
  | { readonly _tag: "TooLarge" }
  /** Not received in time (Http/ClientTimeouts.ts: a CSV import's body). */
  | { readonly _tag: "TimedOut" }
  | { readonly _tag: "Malformed"; readonly message: string }

const malformed = (message: string): UploadProblem => ({ _tag: "Malformed", message })

const boundaryOf = (contentType: string | undefined): string | undefined => {
  if (contentType === undefined || !/^multipart\/form-data\s*;/i.test(contentType)) return undefined
  const match = /;\s*boundary=(?:"([^"]{1,70})"|([^\s;"]{1,70}))/i.exec(contentType)
  return match?.[1] ?? match?.[2]
}

/** `name` and `filename` of a part's Content-Disposition (`form-data; name="x"; filename="y.csv"`). */
const dispositionOf = (headers: string) => {
  const line = headers.split("\r\n").find((l) => /^content-disposition\s*:/i.test(l))
  if (line === undefined) return undefined
  const param = (key: string) => new RegExp(`;\\s*${key}="((?:[^"\\\\]|\\\\.)*)"`, "i").exec(line)?.[1]?.replace(/\\(.)/g, "$1")
  const name = param("name")
  if (name === undefined) return undefined
  const filename = param("filename")
  // some browsers send the whole path: keep the file's own name
  return { name, filename: filename === undefined ? undefined : filename.split(/[\\/]/).pop() ?? "" }
}

/** Parses a multipart body (RFC 7578) whose boundary is `boundary`; a file over `maxFileBytes` is refused. */
export const parseMultipart = (body: Buffer, boundary: string, maxFileBytes: number): Upload | UploadProblem => {
  const delimiter = Buffer.from(`--${boundary}`)
  const next = Buffer.from(`\r\n--${boundary}`)
  const fields = new Map<string, string>()
  const files = new Map<string, UploadedFile>()
  let at = body.indexOf(delimiter)
  if (at === -1) return malformed("The form's body has no parts")
  at += delimiter.length
  for (let parts = 0; ; parts++) {
    if (body.subarray(at, at + 2).toString("latin1") === "--") break
    if (parts === MAX_PARTS) return malformed("The form has too many parts")
    if (body.subarray(at, at + 2).toString("latin1") !== "\r\n") return malformed("The form's body is cut short")
    at += 2
    const headersEnd = body.indexOf("\r\n\r\n", at, "latin1")
    if (headersEnd === -1 || headersEnd - at > MAX_PART_HEADER_BYTES) return malformed("A part of the form has no readable headers")
    const disposition = dispositionOf(body.subarray(at, headersEnd).toString("utf8"))
    const start = headersEnd + 4
    const end = body.indexOf(next, start)
    if (end === -1) return malformed("The form's body is cut short")
    const content = body.subarray(start, end)
    at = end + next.length
    if (disposition === undefined) continue
    if (disposition.filename !== undefined) {
      if (content.length > maxFileBytes) return { _tag: "TooLarge" }
      // an empty file input sends a part with an empty filename and no content
      if (!files.has(disposition.name) && (disposition.filename !== "" || content.length > 0)) {
        files.set(disposition.name, { filename: disposition.filename, bytes: content })
      }
    } else {
      if (content.length > MAX_TEXT_FIELD_BYTES) return malformed(`The form field ${disposition.name} is too long`)
      if (!fields.has(disposition.name)) fields.set(disposition.name, content.toString("utf8"))
    }
  }
  return {
    field: (name) => (fields.get(name) ?? "").trim(),
    file: (name) => files.get(name)
  }
}

/** Reads and parses a multipart upload of the request (see above), with files of at most `maxFileBytes`. */
export const readUpload = (
  request: HttpServerRequest.HttpServerRequest,
  maxFileBytes = MAX_CSV_BYTES
): Effect.Effect<Upload, UploadProblem> => {
  // the Node request's own header: the API's error mapping presents every body to the routes as JSON
  const source = NodeHttpServerRequest.toIncomingMessage(request)
  const boundary = boundaryOf(source.headers["content-type"] ?? request.headers["content-type"])
  if (boundary === undefined) {
    return Effect.fail(malformed("The file must be sent with the page's upload form (multipart/form-data)"))
  }
  const declared = Number(request.headers["content-length"] ?? 0)
  if (declared > MAX_UPLOAD_BYTES) return Effect.fail<UploadProblem>({ _tag: "TooLarge" })
  return readBoundedBytes(request, MAX_UPLOAD_BYTES, "csv").pipe(
    Effect.mapError((error): UploadProblem => ({ _tag: error._tag === "RequestTimeout" ? "TimedOut" : "TooLarge" })),
    Effect.flatMap((body) => {
      const parsed = parseMultipart(body, boundary, maxFileBytes)
      return "_tag" in parsed ? Effect.fail(parsed) : Effect.succeed(parsed)
    })
  )
}
