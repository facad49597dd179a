/**
 * An event's public page and self-registration without email configured (CONTRACT §16): what the
 * page shows and never shows, the same 404 for a private and an unknown slug, the RSVP address's
 * redirect, the link previews and the JSON-LD `Event`, the calendar file (ical.js), and the
 * registration's rules: statuses, closed registration (409), an existing contact left unchanged, a
 * guest not added twice, the honeypot, the per-address bucket (429), cross-site posts, field limits.
 * With email: test/api/public-registration-email.test.ts; capacity under concurrent registrations
 * on both engines: test/repo/self-registration.test.ts; a browser: test/slow/public-page.test.ts.
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import ICAL from "ical.js"
import { createPerson, expectStatus, uniqueEmail } from "../support/Fixtures.js"
import { formTokens, freshAddress, guestsByEmail, publicEvent, register } from "../support/PublicPage.js"
import { receiver } from "../support/Receiver.js"
import { TestServer, testServer } from "../support/TestServer.js"

const hoursFromNow = (hours: number) => new Date(Date.now() + hours * 3_600_000).toISOString()

const page = (slug: string) =>
  Effect.flatMap(TestServer, (server) =>
    Effect.promise(async () => {
      const reply = await server.fetch(`/e/${slug}`, { headers: { "x-forwarded-for": freshAddress() } })
      return { status: reply.status, headers: reply.headers, text: await reply.text() }
    }))

const jsonLdOf = (html: string) => {
  const blocks = [...html.matchAll(/<script type="application\/ld\+json">([\s\S]*?)<\/script>/g)]
  expect(blocks).toHaveLength(1)
  // `<` is written \u003c: nothing in it can end the script element
  expect(blocks[0]![1]!).not.toContain("<")
  return JSON.parse(blocks[0]![1]!)
}

const metaOf = (html: string, attribute: "name" | "property", key: string) =>
  new RegExp(`<meta ${attribute}="${key.replace(/[.:]/g, "\\$&")}" content="([^"]*)"`).exec(html)?.[1]

layer(testServer({ TRUSTED_PROXIES: "127.0.0.1" }), { timeout: 60_000, excludeTestServices: true })("the public event page", (it) => {
  it.effect("shows the event, its places and the form; nothing private; one h1; under 30 KB", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const { event, slug } = yield* publicEvent(server, {
        name: "Spring <Gala>",
        primaryDate: "2031-05-02T19:30:00+02:00",
        endDate: "2031-05-02T23:00:00+02:00",
        locationName: "Grand Hall",
        locationAddress: "1 Rue de Rivoli",
        locationCity: "Paris",
        rsvpDescription: "Line one\nLine <b>two</b>",
        virtualLocations: [{ url: "https://meet.example/secret-room", password: "hunter2", sourceType: "zoom" }],
        images: [{ url: "https://img.example/header.jpg", type: "headerImg" }],
        featuredImage: "https://img.example/featured.jpg",
        capacityEnabled: true,
        capacity: 12,
        rsvpQuestions: [{ title: "Your team?", description: "So we can seat you" }]
      })
      yield* server.request("POST", `/event/${event.eventId}/guestlist`, {
        body: { guests: [{ email: uniqueEmail("private-guest"), firstName: "Secret", lastName: "Guestname" }] }
      })
      const reply = yield* page(slug)
      expect(reply.status).toBe(200)
      const html = reply.text
      expect(html.length).toBeLessThan(30_000)
      expect(html.match(/<h1[ >]/g)).toHaveLength(1)
      expect(html).toContain("Spring &lt;Gala>")
      expect(html).toContain("Friday, May 2, 2031")
      expect(html).toContain("(Europe/Paris time)")
      expect(html).toMatch(/Ends/)
      expect(html).toContain("Grand Hall")
      expect(html).toContain(`href="https://www.openstreetmap.org/search?query=${encodeURIComponent("1 Rue de Rivoli, Paris")}"`)
      // the description as text, its line break kept by the stylesheet (pre-line), never as HTML
      expect(html).toContain("Line one\nLine &lt;b>two&lt;/b>")
      expect(html).toContain('src="https://img.example/header.jpg"')
      expect(html).toContain("Acme")
      expect(html).toContain(`href="/e/${slug}/calendar.ics"`)
      expect(html).toContain("12 places left")
      expect(html).toContain('name="answer0"')
      expect(html).toContain("Your team?")
      for (const secret of ["meet.example", "secret-room", "hunter2", "Guestname", "private-guest"]) expect(html).not.toContain(secret)
      expect(html).not.toMatch(/<script(?! type="application\/ld\+json")/)
      expect(reply.headers.get("content-security-policy")).toMatch(/script-src 'self'/)
      expect(reply.headers.get("content-security-policy")).not.toMatch(/unsafe-inline/)
    }))

  it.effect("the page of an event of 1,000 guests runs the statements one of 10 runs", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const statementsOf = (slug: string) =>
        Effect.gen(function*() {
          yield* page(slug)
          const before = server.statements()
          expect((yield* page(slug)).status).toBe(200)
          return server.statements() - before
        })
      const sized = (count: number) =>
        Effect.gen(function*() {
          const made = yield* publicEvent(server, { capacityEnabled: true, capacity: 5 })
          for (let i = 0; i < count; i += 500) {
            const guests = Array.from({ length: Math.min(500, count - i) }, (_, j) => ({ email: uniqueEmail(`size${count}-${i + j}`), firstName: "S", lastName: "G" }))
            const added = expectStatus(yield* server.request("POST", `/event/${made.event.eventId}/guestlist`, { body: { guests } }), 200).body.guests as Array<{ personId: string }>
            yield* server.request("PUT", `/event/${made.event.eventId}/guestlist`, { body: { guests: added.map((g) => ({ personId: g.personId, rsvpStatus: "Accepted" })) } })
          }
          return made.slug
        })
      const small = yield* statementsOf(yield* sized(10))
      const large = yield* statementsOf(yield* sized(1_000))
      expect(large).toBe(small)
      expect(small).toBeLessThanOrEqual(4)
    }))

  it.effect("link previews and one schema.org Event whose text cannot end the script", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const { slug } = yield* publicEvent(server, {
        name: "Talk </script><script>alert(1)</script>",
        primaryDate: "2031-06-01T18:00:00-04:00",
        timezone: "America/New_York",
        rsvpDescription: "First line\r\nsecond line",
        featuredImage: "https://img.example/featured.jpg",
        locationName: "Library",
        locationAddress: "5 Main St",
        locationCity: "Springfield",
        virtualLocations: [{ url: "https://meet.example/room" }]
      })
      const html = (yield* page(slug)).text
      expect(html).not.toContain("</script><script>alert(1)")
      const url = `https://convene.test/e/${slug}`
      expect(html).toContain("<title>Talk &lt;/script>&lt;script>alert(1)&lt;/script> · Acme</title>")
      expect(metaOf(html, "name", "description")).toBe("First line second line")
      expect(metaOf(html, "property", "og:description")).toBe("First line second line")
      expect(metaOf(html, "property", "og:image")).toBe("https://img.example/featured.jpg")
      expect(metaOf(html, "property", "og:url")).toBe(url)
      expect(metaOf(html, "property", "og:type")).toBe("website")
      expect(metaOf(html, "property", "og:title")).toContain("Talk")
      const ld = jsonLdOf(html)
      expect(ld["@context"]).toBe("https://schema.org")
      expect(ld["@type"]).toBe("Event")
      expect(ld.name).toBe("Talk </script><script>alert(1)</script>")
      expect(ld.startDate).toBe("2031-06-01T18:00:00-04:00")
      expect(ld.eventAttendanceMode).toBe("https://schema.org/MixedEventAttendanceMode")
      expect(ld.eventStatus).toBe("https://schema.org/EventScheduled")
      expect(ld.location).toEqual([
        { "@type": "Place", name: "Library", address: { "@type": "PostalAddress", streetAddress: "5 Main St", addressLocality: "Springfield" } },
        { "@type": "VirtualLocation", url }
      ])
      expect(ld.organizer).toEqual({ "@type": "Organization", name: "Acme" })
      expect(ld.image).toEqual(["https://img.example/featured.jpg"])
      expect(ld.description).toBe("First line second line")
      expect(ld.url).toBe(url)
      expect(JSON.stringify(ld)).not.toContain("meet.example")
    }))

  it.effect("a private event, an unknown slug: the same 404 page; /rsvp/<slug> without invite redirects to a public page", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const { slug: privateSlug } = yield* publicEvent(server, { isPublic: false })
      const { slug } = yield* publicEvent(server)
      const hidden = yield* page(privateSlug)
      const unknown = yield* page("no-such-event")
      expect(hidden.status).toBe(404)
      expect(unknown.status).toBe(404)
      expect(hidden.text).toBe(unknown.text)
      expect((yield* Effect.promise(() => server.fetch(`/e/${privateSlug}/calendar.ics`))).status).toBe(404)
      const redirect = yield* Effect.promise(() => server.fetch(`/rsvp/${slug}`, { redirect: "manual" }))
      expect(redirect.status).toBe(303)
      expect(redirect.headers.get("location")).toBe(`/e/${slug}`)
      expect((yield* Effect.promise(() => server.fetch(`/rsvp/${privateSlug}`, { redirect: "manual" }))).status).toBe(404)
    }))

  it.effect("the calendar file parses with ical.js and links to the page", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const { slug } = yield* publicEvent(server, { name: "Cal test", primaryDate: "2031-05-02T19:30:00+02:00", endDate: "2031-05-02T21:00:00+02:00" })
      const reply = yield* Effect.promise(() => server.fetch(`/e/${slug}/calendar.ics`))
      expect(reply.status).toBe(200)
      expect(reply.headers.get("content-type")).toMatch(/^text\/calendar/)
      const vevent = new ICAL.Component(ICAL.parse(yield* Effect.promise(() => reply.text()))).getFirstSubcomponent("vevent")!
      const event = new ICAL.Event(vevent)
      expect(event.summary).toBe("Cal test")
      expect(event.startDate.toJSDate().toISOString()).toBe("2031-05-02T17:30:00.000Z")
      expect(event.endDate.toJSDate().toISOString()).toBe("2031-05-02T19:00:00.000Z")
      expect(vevent.getFirstPropertyValue("url")).toBe(`https://convene.test/e/${slug}`)
    }))

  it.effect("registration: Accepted while places remain, then Waitlisted; Pending with approval; answers kept; history by the guest", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const { event, slug } = yield* publicEvent(server, { capacityEnabled: true, capacity: 1, rsvpQuestions: [{ title: "Team?" }] })
      const first = uniqueEmail("first")
      const second = uniqueEmail("second")
      const one = yield* register(server, slug, { email: first, extra: { answer0: "Blue", dietary: ["Vegan"], dietaryOther: "No celery" } })
      expect(one.status).toBe(200)
      expect(one.text).toContain("You're registered")
      expect(one.text).toMatch(/https:\/\/convene\.test\/rsvp\/[^?]+\?invite=/)
      const two = yield* register(server, slug, { email: second })
      expect(two.text).toContain("You're on the waitlist")
      const guests = yield* guestsByEmail(server, event.eventId)
      const a = guests.get(first)!
      expect(a.rsvpStatus).toBe("Accepted")
      expect(a.rsvpStatusHistory).toEqual([expect.objectContaining({ status: "Accepted", actorType: "eventPerson", actorId: a.personId })])
      expect(a.rsvpQuestionResponses).toEqual([{ title: "Team?", description: null, answers: ["Blue"] }])
      expect(a.dietaryRestrictions).toEqual(["Vegan", "No celery"])
      expect(guests.get(second)!.rsvpStatus).toBe("Waitlisted")
      expect((yield* page(slug)).text).toContain("This event is full")

      const approval = yield* publicEvent(server, { registrationApproval: true })
      const pending = uniqueEmail("pending")
      expect((yield* register(server, approval.slug, { email: pending })).text).toContain("awaiting approval")
      expect((yield* guestsByEmail(server, approval.event.eventId)).get(pending)!.rsvpStatus).toBe("Pending")
    }))

  it.scoped("a registration sends the GuestList notification of a POST and a guest change in the feed", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const org = yield* server.organization(`pub-hook-${process.pid}`)
      const hook = yield* receiver
      expectStatus(yield* server.request("POST", "/webhook", { token: org.token, body: { webhook: hook.url("/list"), type: "GuestList" } }), 200)
      const { event, slug } = yield* publicEvent(server, {}, org.token)
      const cursor = expectStatus(yield* server.request("GET", "/changes", { token: org.token }), 200).body.nextCursor as string
      const email = uniqueEmail("hooked")
      expect((yield* register(server, slug, { email, firstName: "Hook" })).status).toBe(200)
      const received = yield* hook.next(8_000)
      expect(received.path).toBe("/list")
      expect(received.json).toHaveLength(1)
      expect(received.json[0]).toMatchObject({ email, firstName: "Hook", rsvpStatus: "Accepted" })
      expect(received.json[0].rsvpStatusHistory).toEqual([expect.objectContaining({ status: "Accepted", actorType: "eventPerson", actionType: "added" })])
      const feed = expectStatus(yield* server.request("GET", `/changes?after=${cursor}`, { token: org.token }), 200).body
      const personId = received.json[0].personId as string
      expect((feed.changes as Array<Record<string, string>>).map((c) => [c.type, c.action, c.id])).toEqual(
        expect.arrayContaining([["person", "created", personId], ["guest", "created", personId]])
      )
      expect((yield* guestsByEmail(server, event.eventId, org.token)).get(email)!.personId).toBe(personId)
    }))

  it.effect("closed registration: no form, and a POST answers 409 storing nothing", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const closedFlag = yield* publicEvent(server, { registrationOpen: false })
      const closedDate = yield* publicEvent(server, { registrationClosesAt: hoursFromNow(-1) })
      const started = yield* publicEvent(server, { primaryDate: hoursFromNow(-1) })
      for (const { event, slug } of [closedFlag, closedDate, started]) {
        const html = (yield* page(slug)).text
        expect(html).toContain("Registration is closed")
        expect(html).not.toContain('name="email"')
        const tokens = yield* formTokens(server, slug, freshAddress())
        const reply = yield* register(server, slug, {}, { tokens })
        expect(reply.status).toBe(409)
        expect(reply.text).toContain("Registration is closed")
        expect((yield* guestsByEmail(server, event.eventId)).size).toBe(0)
      }
    }))

  it.effect("an existing contact is matched case-insensitively and never changed; a guest on the list is not added again", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const email = uniqueEmail("known")
      const personId = yield* createPerson(server, { email, firstName: "Known", lastName: "Person" })
      const { event, slug } = yield* publicEvent(server)
      const reply = yield* register(server, slug, { email: email.toUpperCase(), firstName: "Other", lastName: "Name" })
      expect(reply.status).toBe(200)
      const after = expectStatus(yield* server.request("GET", `/person/${personId}`), 200).body
      expect([after.firstName, after.lastName, after.email]).toEqual(["Known", "Person", email])
      const guest = (yield* guestsByEmail(server, event.eventId)).get(email)!
      expect(guest.personId).toBe(personId)
      yield* server.request("PUT", `/event/${event.eventId}/guestlist`, { body: { guests: [{ personId: personId, rsvpStatus: "Declined" }] } })
      const again = yield* register(server, slug, { email })
      expect(again.status).toBe(200)
      // no link: the address was known; use the invitation's
      expect(again.text).toContain("already on the guest list")
      expect(again.text).not.toContain("invite=")
      const list = yield* guestsByEmail(server, event.eventId)
      expect(list.size).toBe(1)
      expect(list.get(email)!.rsvpStatus).toBe("Declined")
      expect(list.get(email)!.rsvpStatusHistory).toHaveLength(2)
    }))

  it.effect("the honeypot: looks like success, stores nothing", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const { event, slug } = yield* publicEvent(server)
      const html = (yield* page(slug)).text
      expect(html).toMatch(/<input type="text" id="website" name="website" value(="")? tabindex="-1" autocomplete="off"\/?>/)
      expect(html).toMatch(/<label for="website">Leave this field empty/)
      const reply = yield* register(server, slug, { extra: { website: "http://spam.example" } })
      expect(reply.status).toBe(200)
      expect(reply.text).toContain("Registration received")
      expect((yield* guestsByEmail(server, event.eventId)).size).toBe(0)
    }))

  it.effect("cross-site posts and missing tokens: 403, nothing stored; field limits: 400 with the form again, nothing stored", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const { event, slug } = yield* publicEvent(server)
      expect((yield* register(server, slug, {}, { origin: "https://evil.example" })).status).toBe(403)
      expect((yield* register(server, slug, {}, { tokens: { cookie: "", csrf: "" } })).status).toBe(403)
      const address = freshAddress()
      const tokens = yield* formTokens(server, slug, address)
      expect((yield* register(server, slug, {}, { address, tokens: { ...tokens, csrf: "x".repeat(32) } })).status).toBe(403)
      const bad = [
        { email: "not-an-email" },
        { firstName: "" },
        { lastName: "x".repeat(201) },
        { email: `${"x".repeat(320)}@example.com` },
        { extra: { dietaryOther: "y".repeat(101) } }
      ]
      for (const who of bad) {
        const reply = yield* register(server, slug, who)
        expect(reply.status, JSON.stringify(who)).toBe(400)
        expect(reply.text).toContain("Nothing was saved")
        expect(reply.text).toContain('aria-invalid="true"')
      }
      expect((yield* guestsByEmail(server, event.eventId)).size).toBe(0)
    }))

  it.effect("20 registrations per client address in 10 minutes; past them a 429 page with Retry-After", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const { slug } = yield* publicEvent(server)
      const address = freshAddress()
      const tokens = yield* formTokens(server, slug, address)
      for (let i = 0; i < 20; i++) expect((yield* register(server, slug, {}, { address, tokens })).status).toBe(200)
      const refused = yield* register(server, slug, {}, { address, tokens })
      expect(refused.status).toBe(429)
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1)
      expect(refused.text).toContain("Too many requests")
      expect((yield* register(server, slug, {})).status).toBe(200)
    }))
})
