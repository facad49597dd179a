import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { mkdirSync } from "node:fs"
import type { Page } from "playwright-core"
import { browser } from "../support/Browser.js"
import { createEvent, createPerson, expectStatus, uniqueEmail } from "../support/Fixtures.js"
import { receiver } from "../support/Receiver.js"
import { TestServer, liveServer } from "../support/TestServer.js"

type Guest = Record<string, any>

/** Rewrites a link from the API (PUBLIC_BASE_URL) to the test server's own address. */
const local = (server: TestServer["Type"], link: string) => server.url + new URL(link).pathname + new URL(link).search

const answer = (page: Page, choice: string) =>
  Effect.promise(async () => {
    await page.getByLabel(choice).check()
    await page.getByRole("button", { name: "Send my answer" }).click()
    await page.waitForURL(/saved=1/)
  })

layer(liveServer({ WEBHOOK_RETRY_SCHEDULE: "100ms", WEBHOOK_TIMEOUT: "2 seconds" }), { excludeTestServices: true })("RSVP page in Chromium", (it) => {
  it.scoped("opens a guest's link from the API, answers, and updates the guest list and webhooks", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const hook = yield* receiver
      const { token } = yield* server.organization("rsvp-browser")
      const as = { token }
      const secret = expectStatus(yield* server.request("POST", "/webhook", { ...as, body: { webhook: hook.url(), type: "EventPerson" } }), 200).body.secret
      expect(secret).toMatch(/^whsec_/)
      const event = yield* createEvent(server, {
        name: "Harbor Lights Festival",
        primarySlug: `harbor-lights-${process.pid}`,
        primaryDate: "2031-06-01T16:00:00Z",
        timezone: "America/New_York",
        locationName: "Pier 9",
        locationCity: "Portsmouth",
        virtualLocations: [{ url: "https://stream.example.org/harbor", sourceType: "livestream" }],
        // an image on loopback: nothing leaves the machine
        images: [{ type: "headerImg", url: `${server.url}/healthz` }],
        rsvpDescription: "Lanterns on the water.\nMusic until late.",
        rsvpQuestions: [{ title: "How many guests are you bringing?", description: "Including children" }],
        customColumns: ["Table"],
        capacityEnabled: true,
        capacity: 1
      }, token)
      const ada = yield* createPerson(server, { firstName: "Ada", lastName: "Byron", phone: "+1 555 0101" }, token)
      const bob = yield* createPerson(server, { firstName: "Bob", lastName: "Secret", email: uniqueEmail("bob.private") }, token)
      const cy = yield* createPerson(server, { firstName: "Cy", lastName: "Late" }, token)
      yield* server.request("POST", `/event/${event.eventId}/guestlist`, { ...as, body: { guests: [{ personId: ada }, { personId: bob }, { personId: cy }] } })
      const links = (yield* server.request("GET", `/event/${event.eventId}/guestlist/search?personIds=${ada},${bob},${cy}&generateRsvpLinks=true`, as)).body.guests
        .reduce((m: Record<string, string>, g: Guest) => ({ ...m, [g.personId]: g.rsvpLink }), {})
      const guests = () =>
        Effect.map(server.request("GET", `/event/${event.eventId}/guestlist`, as), (r) =>
          Object.fromEntries((r.body.guests as Array<Guest>).map((g) => [g.personId, g])))

      const chromium = yield* browser
      const context = yield* Effect.promise(() => chromium.newContext({ viewport: { width: 390, height: 844 } }))
      const page = yield* Effect.promise(() => context.newPage())

      // the page shows the event, in its own time zone
      yield* Effect.promise(() => page.goto(local(server, links[ada])))
      const text = yield* Effect.promise(() => page.locator("main").innerText())
      expect(yield* Effect.promise(() => page.locator("h1").innerText())).toBe("Harbor Lights Festival")
      expect(text).toContain("Sunday, June 1, 2031 at 12:00 PM EDT")
      expect(text).toContain("Pier 9, Portsmouth")
      expect(text).toContain("Join online (livestream)")
      expect(text).toContain("Lanterns on the water. Music until late.")
      expect(text).toContain("Text me updates about this event at +1 555 0101")
      expect(text).not.toContain("Secret")

      // Ada answers yes, with a question answer, a restriction, a note and SMS consent
      yield* Effect.promise(async () => {
        await page.getByLabel("How many guests are you bringing?").fill("2")
        await page.getByLabel("Vegan").check()
        await page.getByLabel("Anything else?").fill("shellfish")
        await page.getByLabel("A note for the host").fill("Arriving by boat")
        await page.getByLabel("Text me updates about this event at +1 555 0101").check()
      })
      yield* answer(page, "Yes, I will be there")
      expect(yield* Effect.promise(() => page.getByRole("status").first().innerText())).toContain("Your answer is saved: you are coming")
      mkdirSync("test-artifacts", { recursive: true })
      yield* Effect.promise(() => page.screenshot({ path: "test-artifacts/rsvp-page.png", fullPage: true }))

      let g = yield* guests()
      expect(g[ada]).toMatchObject({
        rsvpStatus: "Accepted",
        rsvpQuestionResponses: [{ title: "How many guests are you bringing?", description: "Including children", answers: ["2"] }],
        dietaryRestrictions: ["Vegan", "shellfish"],
        rsvpNote: "Arriving by boat",
        smsConsent: { consent: "optedIn", source: "rsvpPage" }
      })
      expect(g[ada].rsvpStatusHistory.at(-1)).toMatchObject({ status: "Accepted", actorType: "eventPerson", actorId: ada })
      const notified = yield* hook.next()
      expect(notified.json[0]).toMatchObject({ personId: ada, rsvpStatus: "Accepted" })
      expect(notified.json[0].rsvpStatusHistory.at(-1)).toMatchObject({ status: "Accepted", actorType: "eventPerson", actionType: "updated" })

      // answering again changes the answer; the form shows what was saved
      expect(yield* Effect.promise(() => page.getByLabel("A note for the host").inputValue())).toBe("Arriving by boat")
      yield* answer(page, "No, I can't make it")
      g = yield* guests()
      expect(g[ada].rsvpStatus).toBe("Declined")
      expect(g[ada].rsvpStatusHistory.map((h: Guest) => h.status)).toEqual(["Invited", "Accepted", "Declined"])
      expect((yield* hook.next()).json[0].rsvpStatus).toBe("Declined")

      // capacity 1: Bob takes the place, so Cy's yes puts Cy on the waitlist
      yield* Effect.promise(() => page.goto(local(server, links[bob])))
      yield* answer(page, "Yes, I will be there")
      yield* Effect.promise(() => page.goto(local(server, links[cy])))
      expect(yield* Effect.promise(() => page.locator("main").innerText())).toContain("The event is full: if you answer yes, you will join the waitlist.")
      expect(yield* Effect.promise(() => page.locator("main").innerText())).not.toContain("Bob")
      yield* answer(page, "Yes, I will be there")
      expect(yield* Effect.promise(() => page.locator("main").innerText())).toContain("you are on the waitlist")
      g = yield* guests()
      expect([g[bob].rsvpStatus, g[cy].rsvpStatus]).toEqual(["Accepted", "Waitlisted"])

      // a link that does not work gets a friendly 404 page
      const missing = yield* Effect.promise(() => page.goto(`${server.url}/rsvp/${event.primarySlug}?invite=not-a-real-token`))
      expect(missing!.status()).toBe(404)
      expect(yield* Effect.promise(() => page.locator("h1").innerText())).toBe("This invitation link does not work")
      // removing a guest withdraws their link
      yield* server.request("DELETE", `/event/${event.eventId}/guestlist`, { ...as, body: { guests: [{ personId: cy }] } })
      expect((yield* Effect.promise(() => page.goto(local(server, links[cy]))))!.status()).toBe(404)
    }), 120_000)

  it.scoped("refuses form posts without the page's CSRF token or from another origin", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const event = yield* createEvent(server, { primarySlug: `csrf-${process.pid}` })
      const personId = yield* createPerson(server)
      yield* server.request("POST", `/event/${event.eventId}/guestlist`, { body: { guests: [{ personId }] } })
      const link = (yield* server.request("GET", `/event/${event.eventId}/guestlist/search?personIds=${personId}&generateRsvpLinks=true`)).body.guests[0].rsvpLink
      const url = local(server, link)
      const pageReply = yield* Effect.promise(() => fetch(url))
      const cookie = pageReply.headers.get("set-cookie")!.split(";")[0]!
      const csrf = /name="csrf" value="([^"]+)"/.exec(yield* Effect.promise(() => pageReply.text()))![1]!
      const post = (headers: Record<string, string>, body: string) =>
        Effect.promise(() => fetch(url, { method: "POST", redirect: "manual", headers: { "content-type": "application/x-www-form-urlencoded", ...headers }, body }))
      expect((yield* post({}, "rsvpStatus=Accepted")).status).toBe(403)
      expect((yield* post({ cookie }, "rsvpStatus=Accepted&csrf=forged")).status).toBe(403)
      expect((yield* post({ cookie, origin: "https://evil.example" }, `rsvpStatus=Accepted&csrf=${csrf}`)).status).toBe(403)
      const guest = () => Effect.map(server.request("GET", `/event/${event.eventId}/guestlist`), (r) => r.body.guests[0])
      expect((yield* guest()).rsvpStatus).toBe("Invited")
      expect((yield* post({ cookie, origin: server.url }, "rsvpStatus=Going&csrf=" + csrf)).status).toBe(400)
      const ok = yield* post({ cookie, origin: server.url }, `rsvpStatus=Maybe&csrf=${csrf}`)
      expect(ok.status).toBe(303)
      expect((yield* guest()).rsvpStatus).toBe("Maybe")
    }))
})
