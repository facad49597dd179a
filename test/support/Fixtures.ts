import { type Duration, Effect } from "effect"
import { expect } from "vitest"
import type { ConveneClient, Payload } from "../../src/Client/index.js"
import type { Reply, TestServerShape } from "./TestServer.js"

let counter = 0
/** A unique email for this test run. */
export const uniqueEmail = (label = "person") => `${label}.${process.pid}.${++counter}@example.com`

export const expectStatus = <T>(reply: Reply<T>, status: number): Reply<T> => {
  expect(reply.status, `${reply.status} ${reply.text}`).toBe(status)
  return reply
}

/** The API's error body (docs/integrators.md#errors). */
export const expectError = (reply: Reply, status: number, code: string) => {
  expectStatus(reply, status)
  expect(reply.headers.get("content-type")).toMatch(/^application\/json/)
  expect(typeof reply.body.message).toBe("string")
  expect(reply.body.code).toBe(code)
  for (const key of Object.keys(reply.body)) expect(["message", "code", "issues"]).toContain(key)
  return reply
}

export const createPerson = (server: Pick<TestServerShape, "request">, fields: Record<string, unknown> = {}, token?: string) =>
  Effect.map(
    server.request("POST", "/person", {
      body: { firstName: "Ada", lastName: "Lovelace", email: uniqueEmail(), ...fields },
      ...(token === undefined ? {} : { token })
    }),
    (reply) => expectStatus(reply, 201).body.personId as string
  )

/** A new person through the typed client (`server.client`, `server.clientAs(token)`); its id. */
export const createPersonWith = (client: ConveneClient, fields: Partial<Payload<"persons", "create">> = {}) =>
  Effect.map(
    client.persons.create({ payload: { firstName: "Ada", lastName: "Lovelace", email: uniqueEmail(), ...fields } }),
    (created) => created.personId
  )

/** Logs in and returns headers for the legacy scheme in `organizationSlug`. */
export const login = (server: Pick<TestServerShape, "request">, email: string, password: string, organizationSlug?: string) =>
  Effect.map(server.request("POST", "/login", { token: null, body: { email, password } }), (reply) => {
    expectStatus(reply, 200)
    const headers: Record<string, string> = { authorization: `Bearer ${reply.body.accessToken}` }
    if (organizationSlug !== undefined) headers["organizationSlug"] = organizationSlug
    return { headers, accessToken: reply.body.accessToken as string, organizationSlugs: reply.body.organizationSlugs as Array<string> }
  })

let eventCounter = 0
/** A date `days` from now, as ISO 8601 with an offset. */
/**
 * Repeats `effect` every `every` until `done` holds of its value, at most `timeoutMs`, and returns
 * the last value (for what settles asynchronously, such as the delivery log after a receiver has answered).
 */
export const eventually = <A, E, R>(
  effect: Effect.Effect<A, E, R>,
  done: (a: A) => boolean,
  timeoutMs = 8_000,
  every: Duration.DurationInput = "50 millis"
) =>
  Effect.gen(function*() {
    const started = Date.now()
    for (;;) {
      const value = yield* effect
      if (done(value) || Date.now() - started > timeoutMs) return value
      yield* Effect.sleep(every)
    }
  })

export const daysFromNow = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString()

export const createEvent = (server: Pick<TestServerShape, "request">, fields: Record<string, unknown> = {}, token?: string) =>
  Effect.map(
    server.request("POST", "/event", {
      body: { name: `Event ${process.pid}-${++eventCounter}`, primaryDate: daysFromNow(30), ...fields },
      ...(token === undefined ? {} : { token })
    }),
    (reply) => expectStatus(reply, 200).body as Record<string, any>
  )

/**
 * A guest answers on their RSVP page as a browser would: the page (its CSRF cookie and field), then
 * the form posted from the test server's public origin. Answers the POST's response (303 when saved).
 */
export const answerRsvp = (serverUrl: string, rsvpLink: string, rsvpStatus: string) =>
  Effect.promise(async () => {
    const { pathname, search } = new URL(rsvpLink)
    const page = await fetch(serverUrl + pathname + search)
    const cookie = page.headers.get("set-cookie")!.split(";")[0]!
    const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())![1]!
    return fetch(serverUrl + pathname + search, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie, origin: "https://convene.test" },
      body: `rsvpStatus=${rsvpStatus}&csrf=${csrf}`
    })
  })

