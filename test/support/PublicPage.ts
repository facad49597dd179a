/**
 * The public event page from a visitor's side (test/api/public-page.test.ts and the tests of
 * self-registration): an event made public, its page read, and a registration posted as a browser
 * would (the page's CSRF cookie and field, the service's own origin), from a client address of the
 * test's choosing (the servers of these tests trust the test's own address as a proxy).
 */
import { Effect } from "effect"
import { createEvent, uniqueEmail } from "./Fixtures.js"
import type { TestServerShape } from "./TestServer.js"

type Server = Pick<TestServerShape, "request" | "fetch">

let counter = 0

/** A client address of its own, for the registration bucket (20 per 10 minutes per address). */
export const freshAddress = () => `10.${(process.pid >> 8) & 255}.${(++counter >> 8) & 255}.${counter & 255}`

/** A public event with a slug of its own. */
export const publicEvent = (server: Server, fields: Record<string, unknown> = {}, token?: string) =>
  Effect.gen(function*() {
    const slug = `pub-${process.pid}-${++counter}`
    const event = yield* createEvent(server, { isPublic: true, primarySlug: slug, timezone: "Europe/Paris", ...fields }, token)
    return { event, slug }
  })

export interface Registrant {
  readonly firstName?: string
  readonly lastName?: string
  readonly email?: string
  readonly extra?: Record<string, string | ReadonlyArray<string>>
}

/** The page's CSRF cookie and field, as a browser gets them. */
export const formTokens = (server: Server, slug: string, address: string) =>
  Effect.promise(async () => {
    const page = await server.fetch(`/e/${slug}`, { headers: { "x-forwarded-for": address } })
    const text = await page.text()
    const cookie = page.headers.get("set-cookie")?.split(";")[0] ?? ""
    // a page without the form (registration closed) still sets the cookie: its value is the token
    const csrf = /name="csrf" value="([^"]+)"/.exec(text)?.[1] ?? cookie.split("=")[1] ?? ""
    return { cookie, csrf }
  })

/** Posts a registration as a browser on the page would; answers the status and the page's text. */
export const register = (
  server: Server,
  slug: string,
  who: Registrant = {},
  options: { address?: string; origin?: string; tokens?: { cookie: string; csrf: string } } = {}
) =>
  Effect.gen(function*() {
    const address = options.address ?? freshAddress()
    const tokens = options.tokens ?? (yield* formTokens(server, slug, address))
    const form = new URLSearchParams()
    form.set("csrf", tokens.csrf)
    form.set("firstName", who.firstName ?? "Reg")
    form.set("lastName", who.lastName ?? "Istrant")
    form.set("email", who.email ?? uniqueEmail("reg"))
    for (const [key, value] of Object.entries(who.extra ?? {})) {
      if (typeof value === "string") form.set(key, value)
      else for (const v of value) form.append(key, v)
    }
    return yield* Effect.promise(async () => {
      const reply = await server.fetch(`/e/${slug}/register`, {
        method: "POST",
        redirect: "manual",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          cookie: tokens.cookie,
          origin: options.origin ?? "https://convene.test",
          "x-forwarded-for": address
        },
        body: form.toString()
      })
      return { status: reply.status, headers: reply.headers, text: await reply.text() }
    })
  })

/** The guests of an event, by email. */
export const guestsByEmail = (server: Server, eventId: string, token?: string) =>
  Effect.map(
    server.request("GET", `/event/${eventId}/guestlist`, token === undefined ? {} : { token }),
    (reply) => new Map((reply.body.guests as Array<Record<string, any>>).map((g) => [g.email as string, g]))
  )
