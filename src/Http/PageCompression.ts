/**
 * HTML pages go out compressed when the browser accepts it: every page of the dashboard, the
 * guests' pages and the guide are rendered per request into one buffer, which is compressed on its
 * way out (the request lifecycle's answer handler, Http/RequestLifecycle.ts, calls `compressPage`
 * for every answer; only a page is touched). Pages are rendered per request, so the codings are
 * their fastest: brotli at quality 1, gzip at level 1 for browsers without brotli. On a guest list
 * of 100 (60 KB of HTML; `npm run bench:compression`, bench/RESULTS.md "Compressed pages and
 * assets") brotli 1 makes 6.0 KB in 0.05 ms of CPU, as small as gzip's default level (5.9 KB,
 * 0.20 ms); brotli 4 would save 0.5 KB more for 3.5 times the CPU. Rendering the page costs 4 ms.
 *
 * Left as they are: pages under `MIN_BYTES` (they fit a packet either way), answers already
 * encoded, and everything that is not a page in one buffer: the API's JSON (integrators' clients,
 * mostly small answers, and the bench's CPU per request; a proxy in front may compress them),
 * streamed answers (guest lists, CSV downloads, the change feed), files, empty answers (303, 304),
 * the assets (compressed once by the build, Web/Kit/Assets.ts). A HEAD gets the headers of its GET
 * (Node sends no body).
 *
 * A compressed page that holds a secret (the session's CSRF token) beside text another site can
 * choose (a search in the query) is what BREACH measures, request after request. Another site's
 * requests carry no session here: the session cookie is SameSite=Lax (only a top-level navigation
 * sends it, one page at a time, in sight), the RSVP form's cookie Strict, and no page may be framed.
 */
import * as HttpBody from "@effect/platform/HttpBody"
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { brotliCompressSync, constants, gzipSync } from "node:zlib"
import { type Coding, preferredCoding, varyOnEncoding } from "./AcceptEncoding.js"

/** Below this, a page goes out as it is: compressing it would not save a packet. */
export const MIN_BYTES = 1024

const OFFERED: ReadonlyArray<Coding> = ["br", "gzip"]

/** A page in `coding`, at the fast levels a per-request answer affords. */
export const compressFast = (coding: Coding, body: Uint8Array): Uint8Array =>
  coding === "br"
    ? brotliCompressSync(body, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: 1,
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        [constants.BROTLI_PARAM_SIZE_HINT]: body.length
      }
    })
    : gzipSync(body, { level: 1 })

/** `response` compressed for `request` when it is a page of `MIN_BYTES` or more, with `Vary: Accept-Encoding`. */
export const compressPage = (
  request: HttpServerRequest.HttpServerRequest,
  response: HttpServerResponse.HttpServerResponse
): HttpServerResponse.HttpServerResponse => {
  const body = response.body
  if (body._tag !== "Uint8Array" || body.body.length < MIN_BYTES) return response
  const headers = response.headers
  const type = headers["content-type"]
  if (type === undefined || !type.startsWith("text/html") || headers["content-encoding"] !== undefined) return response
  const varied = HttpServerResponse.setHeader(response, "vary", varyOnEncoding(headers["vary"]))
  const coding = preferredCoding(request.headers["accept-encoding"], OFFERED)
  if (coding === "identity") return varied
  return HttpServerResponse.setBody(
    HttpServerResponse.setHeader(varied, "content-encoding", coding),
    HttpBody.uint8Array(compressFast(coding, body.body), type)
  )
}
