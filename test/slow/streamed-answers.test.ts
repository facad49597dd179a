/**
 * Streamed answers: the machinery of `Http/JsonStream.ts` on a bare server (back-pressure, a failure
 * after the first byte), and `GET /event/:id/guestlist` written batch by batch: the same document,
 * byte for byte, that the schema declares and `JSON.stringify` gives, for every role.
 */
import { HttpServer, type HttpServerRequest, type HttpServerResponse } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { describe, expect, it, layer } from "@effect/vitest"
import { Effect, FastCheck as fc, Logger, Schema, Stream } from "effect"
import { createServer, get } from "node:http"
import { Guests, GuestSearchResult } from "../../src/Guests/Api.js"
import { jsonText } from "../../src/Http/JsonText.js"
import { jsonArrayAs, utf8Joined } from "../../src/Http/JsonStream.js"
import { createEvent, createPerson, expectError, expectStatus, login, uniqueEmail } from "../support/Fixtures.js"
import { ADMIN_EMAIL, ADMIN_PASSWORD, TestServer, liveServer } from "../support/TestServer.js"

/** The body decodes with the declared schema (no field more), and encoding it gives it back. */
const conforms = <A, I>(schema: Schema.Schema<A, I>, body: unknown) => {
  const decoded = Schema.decodeUnknownSync(schema, { onExcessProperty: "error" })(body)
  expect(Schema.encodeSync(schema)(decoded)).toEqual(body)
}

interface RawReply {
  readonly status: number | undefined
  /** The body as received (empty when not kept), and its length in characters. */
  readonly body: string
  readonly length: number
  /** Whether the response ended as HTTP says it should (false when the connection broke). */
  readonly complete: boolean
}

/** A GET over a connection of its own; `onFirstData` may pause the response and resume it later. */
const rawGet = (url: string, onFirstData?: (pause: () => void, resume: () => void) => void, keepBody = true) =>
  Effect.async<RawReply>((resume) => {
    let body = ""
    let length = 0
    let first = true
    get(url, { agent: false }, (res) => {
      res.setEncoding("utf8")
      res.on("data", (chunk: string) => {
        length += chunk.length
        if (keepBody) body += chunk
        if (first && onFirstData !== undefined) onFirstData(() => res.pause(), () => res.resume())
        first = false
      })
      res.on("error", () => {})
      res.on("close", () => resume(Effect.succeed({ status: res.statusCode, body, length, complete: res.complete })))
    }).on("error", () => resume(Effect.succeed({ status: undefined, body, length, complete: false })))
  })

/** Serves one response-building effect on a fresh loopback server, with the logs it writes. */
const serving = (
  respond: Effect.Effect<HttpServerResponse.HttpServerResponse, never, HttpServerRequest.HttpServerRequest>,
  use: (url: string, logs: ReadonlyArray<{ readonly level: string; readonly message: unknown }>) => Effect.Effect<void>
) => {
  const logs: Array<{ level: string; message: unknown }> = []
  const logger = Logger.make(({ logLevel, message }) => {
    logs.push({ level: logLevel.label, message })
  })
  return Effect.gen(function*() {
    yield* HttpServer.serveEffect(respond)
    const address = (yield* HttpServer.HttpServer).address
    yield* use(address._tag === "TcpAddress" ? `http://127.0.0.1:${address.port}` : "", logs)
  }).pipe(
    Effect.scoped,
    Effect.provide(Logger.replace(Logger.defaultLogger, logger)),
    Effect.provide(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" }))
  )
}

const Items = Schema.Struct({ items: Schema.Array(Schema.String) })

describe("JsonStream", () => {
  it.live("writes {\"key\":[...]} batch by batch, exactly as JSON.stringify of the whole", () =>
    serving(
      jsonArrayAs(Items, "items", Stream.make<Array<Array<string>>>([], ["a", "b\"\u2028"], [], ["c"]).pipe(Stream.map((batch) => batch.map(jsonText)))),
      (url) =>
        Effect.gen(function*() {
          const reply = yield* rawGet(url)
          expect(reply).toMatchObject({ status: 200, body: JSON.stringify({ items: ["a", "b\"\u2028", "c"] }), complete: true })
        })
    ))

  it("joins texts into UTF-8 bytes as Buffer.from of the joined string does, whatever their characters", () => {
    // ASCII, two- to four-byte characters and lone surrogates (written as U+FFFD by both), long and
    // short texts: the buffer, sized for ASCII, has to grow for most of them
    const text = fc.oneof(fc.string({ unit: "grapheme", maxLength: 40 }), fc.string({ unit: "binary", maxLength: 40 }), fc.string({ maxLength: 2_000 }))
    fc.assert(fc.property(fc.constantFrom("", ",", "{\"é\":["), fc.array(text, { maxLength: 30 }), (prefix, texts) => {
      expect(Buffer.from(utf8Joined(prefix, texts)).equals(Buffer.from(prefix + texts.join(","), "utf8"))).toBe(true)
    }), { numRuns: 500 })
  })

  it.live("answers an empty stream with an empty list", () =>
    serving(jsonArrayAs(Items, "items", Stream.empty), (url) =>
      Effect.map(rawGet(url), (reply) => expect(reply).toMatchObject({ status: 200, body: "{\"items\":[]}", complete: true }))))

  it.live("pulls no further batch while the client does not read (back-pressure)", () => {
    let pulled = 0
    // 1,000 items of 1,000 characters: about 1 MB of JSON per batch, 200 MB in all
    const batch = Array.from({ length: 1_000 }, () => jsonText("x".repeat(1_000)))
    const batches = Stream.repeatEffect(Effect.sync(() => {
      pulled++
      return batch
    })).pipe(Stream.take(200))
    return serving(jsonArrayAs(Items, "items", batches), (url) =>
      Effect.gen(function*() {
        const seen: Array<number> = []
        const reply = yield* rawGet(url, (pause, resume) => {
          pause()
          // loopback sockets buffer some MB in the kernel (a few batches): after that, nothing more is made
          setTimeout(() => seen.push(pulled), 1_000)
          setTimeout(() => {
            seen.push(pulled)
            resume()
          }, 2_000)
        }, false)
        expect(seen[1]).toBe(seen[0])
        expect(seen[0]).toBeLessThan(100)
        expect(reply.complete).toBe(true)
        expect(reply.length).toBe(JSON.stringify({ items: [] }).length + 200 * 1_000 * 1_002 + (200 * 1_000 - 1))
        expect(pulled).toBe(200)
      }))
  }, 60_000)

  it.live("aborts the connection, and logs why, when the answer fails after it started", () =>
    serving(
      jsonArrayAs(Items, "items", Stream.make([jsonText("a")], [jsonText("b")]).pipe(Stream.concat(Stream.fail("the disk is gone")))),
      (url, logs) =>
        Effect.gen(function*() {
          const reply = yield* rawGet(url)
          expect(reply.status).toBe(200)
          // never a well-formed answer: neither a complete HTTP response nor a closed JSON document
          expect(reply.complete).toBe(false)
          expect(reply.body.endsWith("]}")).toBe(false)
          yield* Effect.sleep("50 millis")
          const failure = logs.find((l) => l.level === "ERROR")
          expect(String(failure?.message)).toMatch(/failed after it started/)
        })
    ))
})

layer(liveServer(), { excludeTestServices: true })("GET /event/:id/guestlist, streamed", (it) => {
  it.effect("is the declared document, byte for byte what JSON.stringify gives, across batches and roles", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const event = yield* createEvent(server, { ticketingEnabled: true, customColumns: ["Table"], primarySlug: `stream-${process.pid}` })
      const path = `/event/${event.eventId}/guestlist`
      // 1,500 guests: one batch and a half of the list's reads
      const personIds: Array<string> = []
      for (let batch = 0; batch < 3; batch++) {
        const guests = Array.from({ length: 500 }, (_, i) => ({
          firstName: `S${i}`,
          lastName: `Batch${batch}`,
          email: uniqueEmail("streamed"),
          ...(i % 3 === 0 ? { phoneNumber: `+1555${batch}${i}` } : {})
        }))
        const added = expectStatus(yield* server.request("POST", path, { body: { guests } }), 200).body
        personIds.push(...added.guests.map((g: { personId: string }) => g.personId))
      }
      const [a, b] = [personIds[0]!, personIds[1_200]!]
      yield* server.request("PUT", path, {
        body: { guests: [{ personId: b, rsvpStatus: "Accepted", attendanceStatus: "Attended", dietaryRestrictions: ["vegan"], rsvpNote: "hi", customColumns: { Table: 4 } }] }
      })
      const purchase = expectStatus(yield* server.request("POST", `/event/${event.eventId}/purchase`, {
        body: { items: [{ personId: a, type: "TICKET", subtotal: 1000, tax: 100, serviceFee: 50 }, { personId: b, type: "DONATION", subtotal: 500, tax: 0, serviceFee: 0 }] }
      }), 200).body
      yield* server.request("POST", `/event/${event.eventId}/purchase/${purchase.purchaseId}/refund`, { body: { amount: 100, itemId: purchase.items[0].itemId } })
      yield* server.request("GET", `/event/${event.eventId}/guestlist/search?personIds=${a},${b}&generateRsvpLinks=true`)

      const admin = expectStatus(yield* server.request("GET", path), 200)
      expect(admin.headers.get("content-type")).toMatch(/^application\/json/)
      conforms(Guests, admin.body)
      expect(admin.text).toBe(JSON.stringify(admin.body))
      expect(admin.body.guests.map((g: { personId: string }) => g.personId)).toEqual(personIds)
      const [first, later] = [admin.body.guests[0], admin.body.guests[1_200]]
      expect(first.payments).toHaveLength(1)
      expect(later).toMatchObject({ rsvpStatus: "Accepted", donationAmount: 500, customColumns: { Table: 4 } })
      expect(first.payments[0].total).toBe(later.payments[0].total)
      // the same guests as the non-streamed search renders them, key order included
      const searched = expectStatus(yield* server.request("GET", `/event/${event.eventId}/guestlist/search?personIds=${a},${b}`), 200).body
      conforms(GuestSearchResult, searched)
      expect(JSON.stringify(searched.guests)).toBe(JSON.stringify([first, later]))

      const owner = yield* login(server, ADMIN_EMAIL, ADMIN_PASSWORD, "acme")
      const email = uniqueEmail("stream-viewer")
      yield* server.request("POST", "/member", { token: null, headers: owner.headers, body: { email, password: "viewer-password", role: "Viewer" } })
      const viewer = yield* login(server, email, "viewer-password", "acme")
      const seen = expectStatus(yield* server.request("GET", path, { token: null, headers: viewer.headers }), 200)
      conforms(Guests, seen.body)
      expect(seen.text).toBe(JSON.stringify(seen.body))
      const withoutPayments = admin.body.guests.map(({ donationAmount: _d, paymentAmount: _a, paymentStatus: _s, payments: _p, ...rest }: Record<string, unknown>) => rest)
      expect(seen.text).toBe(JSON.stringify({ guests: withoutPayments }))
    }), 120_000)

  it.effect("answers an empty list, and its errors before the first byte as JSON errors", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const event = yield* createEvent(server)
      const empty = expectStatus(yield* server.request("GET", `/event/${event.eventId}/guestlist`), 200)
      expect(empty.text).toBe("{\"guests\":[]}")
      const personId = yield* createPerson(server)
      yield* server.request("POST", `/event/${event.eventId}/guestlist`, { body: { guests: [{ personId }] } })
      yield* server.request("DELETE", `/event/${event.eventId}/guestlist`, { body: { guests: [{ personId }] } })
      expect(expectStatus(yield* server.request("GET", `/event/${event.eventId}/guestlist`), 200).text).toBe("{\"guests\":[]}")
      expectError(yield* server.request("GET", "/event/no-such-event/guestlist"), 404, "not_found")
      expectError(yield* server.request("GET", `/event/${event.eventId}/guestlist`, { token: null }), 401, "unauthorized")
      const other = yield* server.organization("streamed-other")
      expectError(yield* server.request("GET", `/event/${event.eventId}/guestlist`, { token: other.token }), 404, "not_found")
    }))
})
