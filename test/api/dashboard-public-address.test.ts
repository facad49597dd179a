/**
 * The public address in the dashboard (CONTRACT §16): an event's page shows its public page's
 * absolute address to copy when it is public, and says that a private event has none and how to
 * publish it (no promise of a public RSVP page); Admins read that without email the registration
 * form tells whether an email is registered. While PUBLIC_BASE_URL is unset, Admins reaching the
 * dashboard under another host name than this computer's see a banner saying where links point;
 * others, and anyone under localhost, do not.
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { PublicOrigin } from "../../src/Runtime/PublicOrigin.js"
import { addMember, SESSION_COOKIE, signIn, textOf } from "../support/Dashboard.js"
import { createEvent } from "../support/Fixtures.js"
import { ADMIN_EMAIL, ADMIN_PASSWORD, TestServer, testServer } from "../support/TestServer.js"

const admin = { email: ADMIN_EMAIL, password: ADMIN_PASSWORD }
let counter = 0

layer(testServer(), { excludeTestServices: true })("an event's page: its public address", (it) => {
  it.scoped("a public event shows its absolute /e/<slug> address to copy; a private one says it has none and how to publish it", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const slug = `face-page-${process.pid}-${++counter}`
      const open = yield* createEvent(server, { name: "Open day", isPublic: true, primarySlug: slug, registrationApproval: true })
      const closed = yield* createEvent(server, { name: "Board meeting", isPublic: false, primarySlug: `${slug}-private` })
      const browser = yield* signIn(server.url, admin, { origin: "https://convene.test" })

      const page = yield* browser.get(`/app/events/${open.eventId}`)
      const text = textOf(page.html)
      expect(page.html).toContain(`value="https://convene.test/e/${slug}"`)
      expect(page.html).toContain(`data-copy="public-page-address"`)
      expect(page.html).toContain(`href="https://convene.test/o/acme"`)
      expect(text).toContain("Registration is open until the event starts; registrations wait for your approval.")
      expect(text).not.toContain("public RSVP page")
      expect(text).not.toContain("This event is private")
      // email is not configured on the test server: the Admin is told what that means
      expect(text).toContain("the form's answer tells anyone whether an email is already registered")

      const hidden = textOf((yield* browser.get(`/app/events/${closed.eventId}`)).html)
      expect(hidden).toContain("This event is private: it has no public page")
      expect(hidden).toContain("To publish it, tick Public event in Edit event.")
      expect(hidden).not.toContain("/e/")
      expect(hidden).not.toContain("public RSVP page")
    }))
})

layer(testServer({ PUBLIC_BASE_URL: "" }), { excludeTestServices: true })("PUBLIC_BASE_URL unset: the dashboard's banner", (it) => {
  it.scoped("Admins under another host name see it; a Team Member does not, nor an Admin under localhost", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const origin = yield* PublicOrigin
      expect(origin.configured).toBe(false)
      const owner = yield* signIn(server.url, admin, { origin: origin.webOrigin })
      // the test server's own host name (convene-….in-process) is not this computer's name
      const warned = textOf((yield* owner.get("/app/events")).html)
      expect(warned).toContain("Links point at the wrong address.")
      expect(warned).toContain(`PUBLIC_BASE_URL is not set, so links that leave Convene`)
      expect(warned).toContain(`point at ${origin.baseUrl}`)
      expect(warned).toContain(`you reached this dashboard at ${new URL(server.url).hostname}`)

      const underLocalhost = yield* Effect.promise(() =>
        server.fetch("/app/events", { headers: { cookie: `${SESSION_COOKIE}=${owner.session()}`, host: "localhost:3000" } }).then((r) => r.text())
      )
      expect(textOf(underLocalhost)).toContain("Events")
      expect(textOf(underLocalhost)).not.toContain("Links point at the wrong address")

      const account = yield* addMember({ id: (yield* server.organization(`face-org-${process.pid}-${++counter}`)).id, slug: "x", name: "x" }, "Team Member")
      const member = yield* signIn(server.url, account, { origin: origin.webOrigin })
      const plain = textOf((yield* member.get("/app/events")).html)
      expect(plain).toContain("Events")
      expect(plain).not.toContain("Links point at the wrong address")
    }))
})
