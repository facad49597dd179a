/**
 * The dashboard's event pages over HTTP (docs/integrators.md#events, docs/integrators.md#the-dashboard): the form creates and edits every field
 * as the API stores it, edits notify webhooks with exactly the changed fields, roles are enforced
 * on the server, other organizations' events do not exist, refused input changes nothing and is
 * shown again, and names and descriptions never become markup.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { decodeEntities, type PageReply, signIn as signInAs, textOf } from "../support/Dashboard.js"
import { createEvent, daysFromNow, expectStatus, login, uniqueEmail } from "../support/Fixtures.js"
import { receiver } from "../support/Receiver.js"
import { ADMIN_EMAIL, ADMIN_PASSWORD, TestServer, testServer } from "../support/TestServer.js"

/** PUBLIC_BASE_URL of the test server: what the browser sends as `Origin`. */
const ORIGIN = "https://convene.test"

type Page = PageReply

/** Signs in through the sign-in form, as a person would. */
const signIn = (email: string, password: string) =>
  Effect.flatMap(TestServer, (server) => signInAs(server.url, { email, password }, { origin: ORIGIN }))

/** A new member of the test organization with `role`, signed in to the dashboard. */
const memberWithRole = (role: string) =>
  Effect.gen(function*() {
    const server = yield* TestServer
    const owner = yield* login(server, ADMIN_EMAIL, ADMIN_PASSWORD, "acme")
    const email = uniqueEmail(role.replace(" ", "").toLowerCase())
    const password = `pw-${email}`
    const reply = yield* server.request("POST", "/member", {
      token: null,
      headers: owner.headers,
      body: { email, password, firstName: "Pat", lastName: role, role }
    })
    expectStatus(reply, 200)
    return { userId: reply.body.userId as string, browser: yield* signIn(email, password) }
  })

const admin = signIn(ADMIN_EMAIL, ADMIN_PASSWORD)

/**
 * The fields a browser would send for the form in `html`: text inputs, textareas, the selected
 * option of each select, ticked checkboxes (the CSRF field is added by `post`).
 */
const formFields = (html: string): Array<[string, string]> => {
  const form = /<form[^>]*class="event-form"[^>]*>([\s\S]*)<\/form>/.exec(html)?.[1] ?? ""
  // attribute values may hold ">" (only "&" and '"' are escaped in them): read them in order
  const attrs = (text: string) => {
    const found: Record<string, string> = {}
    const attribute = /\s*([a-zA-Z-]+)(?:="([^"]*)")?/y
    for (let m = attribute.exec(text); m !== null && m[0] !== ""; m = attribute.exec(text)) found[m[1]!] = decodeEntities(m[2] ?? "")
    return found
  }
  const TAG = (name: string) => new RegExp(`<${name}((?:[^>"]|"[^"]*")*)>`, "g")
  const fields: Array<[string, string]> = []
  for (const [, inside] of form.matchAll(TAG("input"))) {
    const a = attrs(inside!)
    if (a["name"] === undefined || a["name"] === "_csrf") continue
    if (a["type"] === "checkbox" && !("checked" in a)) continue
    fields.push([a["name"], a["value"] ?? (a["type"] === "checkbox" ? "on" : "")])
  }
  for (const m of form.matchAll(/<textarea((?:[^>"]|"[^"]*")*)>([\s\S]*?)<\/textarea>/g)) {
    // browsers send a textarea's line breaks as CRLF
    fields.push([attrs(m[1]!)["name"]!, decodeEntities(m[2]!).replace(/\n/g, "\r\n")])
  }
  for (const m of form.matchAll(/<select((?:[^>"]|"[^"]*")*)>([\s\S]*?)<\/select>/g)) {
    const selected = [...m[2]!.matchAll(TAG("option"))].map((o) => attrs(o[1]!)).find((o) => "selected" in o)
    fields.push([attrs(m[1]!)["name"]!, selected?.["value"] ?? ""])
  }
  return fields
}

/** `fields` with some values replaced (or added). */
const change = (fields: ReadonlyArray<[string, string]>, changes: Record<string, string | null>) => {
  const kept = fields.filter(([name]) => !(name in changes))
  return [...kept, ...Object.entries(changes).filter((e): e is [string, string] => e[1] !== null)]
}

const eventIdOf = (page: Page) => {
  expect(page.status, page.html.slice(0, 2000)).toBe(303)
  return /\/app\/events\/([^/?]+)$/.exec(page.location ?? "")![1]!
}

const organizationEvents = Effect.flatMap(TestServer, (server) =>
  Effect.map(
    server.request("GET", "/event?showOrganizationEvents=true&includePastEvents=true&limit=100"),
    (r) => expectStatus(r, 200).body.events as Array<Record<string, any>>
  ))

const errorTexts = (html: string) => [...html.matchAll(/class="error-text"[^>]*>([^<]*)</g)].map((m) => decodeEntities(m[1]!))

layer(testServer(), { excludeTestServices: true })("dashboard events", (it) => {
  describe("creating through the form", () => {
    it.effect("stores every field as typed, the date with its time zone's offset", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const browser = yield* admin
        const host = yield* memberWithRole("Team Member")
        const form = yield* browser.get("/app/events/new")
        expect(form.status).toBe(200)
        expect(form.html).toContain("<h1>New event</h1>")
        const slug = `gala-${process.pid}`
        const created = yield* browser.post("/app/events", [
          ["name", "Summer Gala"],
          ["primaryDate", "2031-07-14T19:30"],
          ["timezone", "America/New_York"],
          ["primarySlug", slug],
          ["isPublic", "on"],
          ["locationName", "Grand Hall"],
          ["locationAddress", "1 Main St"],
          ["locationApartment", "Floor 2"],
          ["locationCity", "New York"],
          ["locationState", "NY"],
          ["locationPostalCode", "10001"],
          ["locationCountry", "US"],
          ["locationPhoneNumber", "+1 212 555 0100"],
          ["locationWebsite", "https://hall.example/"],
          ["virtualLocations.0.url", "https://meet.example/abc"],
          ["virtualLocations.0.password", "s3cret"],
          ["virtualLocations.0.phoneNumber", "+1 555 0101"],
          ["virtualLocations.0.sourceType", "zoom"],
          // a blank row is skipped, and a row after it still counts
          ["virtualLocations.1.url", ""],
          ["virtualLocations.1.password", ""],
          ["virtualLocations.1.phoneNumber", ""],
          ["virtualLocations.1.sourceType", ""],
          ["virtualLocations.2.url", "https://stream.example/live"],
          ["virtualLocations.2.password", ""],
          ["virtualLocations.2.phoneNumber", ""],
          ["virtualLocations.2.sourceType", ""],
          ["eventTags", "gala\r\nsummer\r\n\r\n"],
          ["images.0.type", "headerImg"],
          ["images.0.url", "https://img.example/h.png"],
          ["images.1.type", ""],
          ["images.1.url", ""],
          ["rsvpDescription", "Line one\r\nLine two"],
          ["linkPreviewDescription", "Dinner and dancing"],
          ["featuredImage", "https://img.example/f.png"],
          ["capacityEnabled", "on"],
          ["capacity", "150"],
          ["ticketingEnabled", "on"],
          ["rsvpQuestions.0.title", "Dietary needs?"],
          ["rsvpQuestions.0.description", "Tell us"],
          ["rsvpQuestions.1.title", "T-shirt size"],
          ["rsvpQuestions.1.description", ""],
          ["customColumns", "Table\r\nBadge"],
          ["hostUserIds", host.userId]
        ])
        const eventId = eventIdOf(created)
        const event = expectStatus(yield* server.request("GET", `/event/${eventId}`), 200).body
        expect(event).toMatchObject({
          name: "Summer Gala",
          primaryDate: "2031-07-14T19:30:00-04:00",
          timezone: "America/New_York",
          primarySlug: slug,
          isPublic: true,
          locationName: "Grand Hall",
          locationAddress: "1 Main St",
          locationApartment: "Floor 2",
          locationCity: "New York",
          locationState: "NY",
          locationPostalCode: "10001",
          locationCountry: "US",
          locationPhoneNumber: "+1 212 555 0100",
          locationWebsite: "https://hall.example/",
          virtualLocations: [
            { url: "https://meet.example/abc", password: "s3cret", phoneNumber: "+1 555 0101", sourceType: "zoom" },
            { url: "https://stream.example/live", password: null, phoneNumber: null, sourceType: null }
          ],
          eventTags: ["gala", "summer"],
          images: [{ type: "headerImg", url: "https://img.example/h.png" }],
          rsvpDescription: "Line one\nLine two",
          linkPreviewDescription: "Dinner and dancing",
          description: "Dinner and dancing",
          featuredImage: "https://img.example/f.png",
          capacityEnabled: true,
          capacity: 150,
          ticketingEnabled: true,
          rsvpQuestions: [{ title: "Dietary needs?", description: "Tell us" }, { title: "T-shirt size", description: null }],
          customColumns: ["Table", "Badge"]
        })
        expect(event.hostUserIds).toHaveLength(2)
        expect(event.hostUserIds).toContain(host.userId)

        // the event page says what was made, in the event's own time zone
        const page = yield* browser.get(created.location!)
        expect(page.status).toBe(200)
        expect(page.html).toContain("Event “Summer Gala” created.")
        expect(page.html).toContain("Mon, Jul 14, 2031, 7:30 PM EDT")
        // a public event's page address, to copy (CONTRACT §16), and no promise of a public RSVP page
        expect(page.html).toContain(`value="https://convene.test/e/${slug}"`)
        expect(page.html).not.toContain("public RSVP page")
        for (const status of ["Invited", "Accepted", "Maybe", "Declined", "Waitlisted"]) {
          expect(page.html).toContain(`/app/events/${eventId}/guests?status=${status}`)
        }
        expect(page.html).toContain(`/app/events/${eventId}/checkin`)
        expect(page.html).toContain(">Edit event<")
      }))

    it.effect("makes the page address from the name when it is left empty, and none when asked", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const browser = yield* admin
        const name = `Slug Party ${process.pid}`
        const generated = eventIdOf(yield* browser.post("/app/events", [["name", name], ["primaryDate", "2031-01-01T10:00"], ["timezone", "UTC"], ["primarySlug", ""]]))
        const withSlug = expectStatus(yield* server.request("GET", `/event/${generated}`), 200).body
        expect(withSlug.primarySlug).toBe(`slug-party-${process.pid}`)
        expect(withSlug.primaryDate).toBe("2031-01-01T10:00:00+00:00")
        const none = eventIdOf(yield* browser.post("/app/events", [["name", name], ["primaryDate", "2031-01-01T10:00"], ["timezone", "UTC"], ["noPublicPage", "on"]]))
        expect(expectStatus(yield* server.request("GET", `/event/${none}`), 200).body.primarySlug).toBeNull()
      }))
  })

  describe("editing", () => {
    it.scoped("saves only what changed, clears cleared fields, and notifies webhooks of exactly those", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const browser = yield* admin
        const hook = yield* receiver
        expectStatus(yield* server.request("POST", "/webhook", { body: { webhook: hook.url("/event"), type: "Event" } }), 200)
        const event = yield* createEvent(server, {
          name: "Board Meeting",
          // given in UTC: the form shows 11:00 in Paris, and saving it unchanged must not move it
          primaryDate: "2031-09-10T09:00:00Z",
          timezone: "Europe/Paris",
          locationName: "Room 1",
          locationCity: "Paris",
          virtualLocations: [{ url: "https://meet.example/a" }, { url: "https://meet.example/b", sourceType: "meet" }],
          eventTags: ["board"],
          rsvpDescription: "Agenda\nfollows",
          linkPreviewDescription: "",
          capacityEnabled: true,
          capacity: 12,
          rsvpQuestions: [{ title: "Attending remotely?" }],
          customColumns: ["Seat"]
        })
        const path = `/app/events/${event.eventId}/edit`
        const form = yield* browser.get(path)
        expect(form.status).toBe(200)
        const fields = formFields(form.html)
        expect(fields).toContainEqual(["primaryDate", "2031-09-10T11:00"])
        expect(fields).toContainEqual(["timezone", "Europe/Paris"])

        // saved as shown: nothing changes, nobody is notified
        const unchanged = yield* browser.post(path, fields)
        expect(unchanged.status).toBe(303)
        expect((yield* browser.get(unchanged.location!)).html).toContain("Nothing to save")
        expect(expectStatus(yield* server.request("GET", `/event/${event.eventId}`), 200).body).toEqual(event)

        const edited = yield* browser.post(
          path,
          change(fields, {
            name: "Board Meeting (moved)",
            primaryDate: "2031-09-10T14:00",
            locationCity: "",
            rsvpDescription: "",
            "virtualLocations.0.url": "",
            eventTags: "board\r\nq3",
            capacity: ""
          })
        )
        expect(edited.status, edited.html.slice(0, 3000)).toBe(303)
        const after = expectStatus(yield* server.request("GET", `/event/${event.eventId}`), 200).body
        expect(after).toEqual({
          ...event,
          name: "Board Meeting (moved)",
          primaryDate: "2031-09-10T14:00:00+02:00",
          locationCity: null,
          rsvpDescription: null,
          virtualLocations: [{ url: "https://meet.example/b", password: null, phoneNumber: null, sourceType: "meet" }],
          eventTags: ["board", "q3"],
          capacity: null
        })
        const notification = yield* hook.next()
        expect(notification.json).toMatchObject({ eventId: event.eventId, action: "event_updated", data: { name: "Board Meeting (moved)" } })
        expect([...notification.json.data.updatedFields].sort()).toEqual(
          ["name", "primaryDate", "locationCity", "virtualLocations", "eventTags", "rsvpDescription", "capacity"].sort()
        )
        expect(hook.received).toHaveLength(1)
        const page = yield* browser.get(edited.location!)
        expect(page.html).toContain("Saved “Board Meeting (moved)”")
      }))

    it.effect("a capacity raised in the form moves the waitlist, as PATCH /event/:id does", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const browser = yield* admin
        const event = yield* createEvent(server, { name: "Workshop", capacityEnabled: true, capacity: 1 })
        const added = expectStatus(yield* server.request("POST", `/event/${event.eventId}/guestlist`, {
          body: { guests: [{ email: "form-holder@example.com", firstName: "Holder", lastName: "Guest" }, { email: "form-waiting@example.com", firstName: "Waiting", lastName: "Guest" }] }
        }), 200).body
        const [holder, waiting] = (added.guests as Array<{ personId: string }>).map((g) => g.personId)
        for (const [personId, rsvpStatus] of [[holder, "Accepted"], [waiting, "Waitlisted"]]) {
          expectStatus(yield* server.request("PUT", `/event/${event.eventId}/guestlist`, { body: { guests: [{ personId, rsvpStatus }] } }), 200)
        }
        const path = `/app/events/${event.eventId}/edit`
        const saved = yield* browser.post(path, change(formFields((yield* browser.get(path)).html), { capacity: "2" }))
        expect(saved.status, saved.html.slice(0, 2000)).toBe(303)
        const list = expectStatus(yield* server.request("GET", `/event/${event.eventId}/guestlist`), 200).body
        const promoted = (list.guests as Array<Record<string, any>>).find((g) => g.personId === waiting)!
        expect(promoted.rsvpStatus).toBe("Accepted")
        expect(promoted.rsvpStatusHistory.at(-1)).toMatchObject({ status: "Accepted", actorType: "system", actorId: event.eventId })
      }))

    it.effect("keeps a change made meanwhile by someone else", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const browser = yield* admin
        const event = yield* createEvent(server, { name: "Offsite", locationCity: "Lyon" })
        const path = `/app/events/${event.eventId}/edit`
        const fields = formFields((yield* browser.get(path)).html)
        expectStatus(yield* server.request("PATCH", `/event/${event.eventId}`, { body: { locationCity: "Nice" } }), 200)
        expect((yield* browser.post(path, change(fields, { name: "Offsite 2031" }))).status).toBe(303)
        const after = expectStatus(yield* server.request("GET", `/event/${event.eventId}`), 200).body
        expect(after).toMatchObject({ name: "Offsite 2031", locationCity: "Nice" })
      }))

    it.effect("takes the page address away and gives it back", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const browser = yield* admin
        const name = `Retreat ${process.pid}`
        const event = yield* createEvent(server, { name })
        const path = `/app/events/${event.eventId}/edit`
        expect(event.primarySlug).toBe(`retreat-${process.pid}`)
        yield* browser.post(path, change(formFields((yield* browser.get(path)).html), { noPublicPage: "on" }))
        expect(expectStatus(yield* server.request("GET", `/event/${event.eventId}`), 200).body.primarySlug).toBeNull()
        yield* browser.post(path, change(formFields((yield* browser.get(path)).html), { noPublicPage: null, primarySlug: "" }))
        expect(expectStatus(yield* server.request("GET", `/event/${event.eventId}`), 200).body.primarySlug).toBe(`retreat-${process.pid}`)
      }))
  })

  describe("roles", () => {
    for (const role of ["Viewer", "Team Member"]) {
      it.effect(`a ${role} reads events but sees no write controls and cannot forge them`, () =>
        Effect.gen(function*() {
          const server = yield* TestServer
          const { browser } = yield* memberWithRole(role)
          const event = yield* createEvent(server, { name: `Seen by ${role}` })
          const list = yield* browser.get("/app/events")
          expect(list.status).toBe(200)
          expect(list.html).toContain(`Seen by ${role}`)
          expect(list.html).not.toContain("New event")
          const page = yield* browser.get(`/app/events/${event.eventId}`)
          expect(page.status).toBe(200)
          expect(page.html).not.toContain("Edit event")
          expect((yield* browser.get("/app/events/new")).status).toBe(403)
          expect((yield* browser.get(`/app/events/${event.eventId}/edit`)).status).toBe(403)

          const before = (yield* organizationEvents).length
          const forged = yield* browser.post("/app/events", [["name", "Forged"], ["primaryDate", "2031-01-01T10:00"], ["timezone", "UTC"]])
          expect(forged.status).toBe(403)
          const edit = yield* browser.post(`/app/events/${event.eventId}/edit`, [["name", "Forged"], ["primaryDate", "2031-01-01T10:00"], ["timezone", "UTC"]])
          expect(edit.status).toBe(403)
          expect((yield* organizationEvents).length).toBe(before)
          expect(expectStatus(yield* server.request("GET", `/event/${event.eventId}`), 200).body).toEqual(event)
        }))
    }

    it.effect("a form without the session's token, or from another site, changes nothing", () =>
      Effect.gen(function*() {
        const browser = yield* admin
        const before = (yield* organizationEvents).length
        const fields = [["name", "Evil"], ["primaryDate", "2031-01-01T10:00"], ["timezone", "UTC"]] as const
        expect((yield* browser.post("/app/events", fields, { csrf: "wrong" })).status).toBe(403)
        expect((yield* browser.post("/app/events", fields, { origin: "https://evil.example" })).status).toBe(403)
        expect((yield* organizationEvents).length).toBe(before)
      }))
  })

  describe("tenancy", () => {
    it.effect("another organization's event is not found", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const browser = yield* admin
        const other = yield* server.organization(`other-${process.pid}`)
        const foreign = yield* createEvent(server, { name: "Their Secret Party" }, other.token)
        for (const path of [`/app/events/${foreign.eventId}`, `/app/events/${foreign.eventId}/edit`, "/app/events/no-such-event"]) {
          const page = yield* browser.get(path)
          expect(page.status).toBe(404)
          expect(page.html).not.toContain("Their Secret Party")
        }
        const post = yield* browser.post(`/app/events/${foreign.eventId}/edit`, [["name", "Mine now"], ["primaryDate", "2031-01-01T10:00"], ["timezone", "UTC"]])
        expect(post.status).toBe(404)
        const after = expectStatus(yield* server.request("GET", `/event/${foreign.eventId}`, { token: other.token }), 200).body
        expect(after).toEqual(foreign)
        expect((yield* browser.get(`/app/events?q=${encodeURIComponent("Their Secret")}`)).html).not.toContain("Their Secret Party")
      }))
  })

  describe("refused input", () => {
    it.effect("shows each problem at its field, keeps what was typed, and creates nothing", () =>
      Effect.gen(function*() {
        const browser = yield* admin
        const before = (yield* organizationEvents).length
        const page = yield* browser.post("/app/events", [
          ["name", ""],
          ["primaryDate", "2031-02-30T10:00"],
          ["timezone", "Europe/Berlin"],
          ["locationCity", "Typed City"],
          ["locationWebsite", "javascript:alert(1)"],
          ["virtualLocations.0.url", "not a url"],
          ["virtualLocations.0.sourceType", "zoom"],
          ["capacity", "a dozen"],
          ["customColumns", "Seat\r\nseat"]
        ])
        expect(page.status).toBe(400)
        expect(page.html).toContain("Please correct these")
        const errors = errorTexts(page.html)
        expect(errors).toEqual(expect.arrayContaining([
          "Name must be filled in",
          "Date and time must be a real date and time",
          "Website must be a full web address, starting with https:// or http://",
          "Online location 1: link must be a full web address, starting with https:// or http://",
          "Capacity must be a whole number"
        ]))
        // each message sits with its field, which is marked invalid
        expect(page.html).toMatch(/id="f-virtualLocations\.0\.url"[^>]*aria-invalid="true"/)
        expect(page.html).toContain("href=\"#f-virtualLocations.0.url\"")
        // the typed values come back
        expect(page.html).toContain("value=\"Typed City\"")
        expect(page.html).toContain("value=\"not a url\"")
        expect(page.html).toContain("value=\"zoom\"")
        expect(page.html).toContain("value=\"2031-02-30T10:00\"")
        expect(page.html).toMatch(/<option value="Europe\/Berlin" selected/)
        expect((yield* organizationEvents).length).toBe(before)

        // the service's own checks land at their fields too (a duplicate column title)
        const duplicate = yield* browser.post("/app/events", [["name", "Dupes"], ["primaryDate", "2031-02-20T10:00"], ["timezone", "UTC"], ["customColumns", "Seat\r\nseat"]])
        expect(duplicate.status).toBe(400)
        expect(errorTexts(duplicate.html)).toEqual(["Column “seat” is a duplicate"])
        expect((yield* organizationEvents).length).toBe(before)
      }))

    it.effect("a taken page address is a conflict at its field", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const browser = yield* admin
        const taken = yield* createEvent(server, { name: "Taken", primarySlug: `taken-${process.pid}` })
        const before = (yield* organizationEvents).length
        const page = yield* browser.post("/app/events", [["name", "Mine"], ["primaryDate", "2031-03-01T10:00"], ["timezone", "UTC"], ["primarySlug", taken.primarySlug]])
        expect(page.status).toBe(409)
        expect(errorTexts(page.html).join(" ")).toContain("Page address is taken")
        expect(page.html).toContain(`value="${taken.primarySlug}"`)
        expect((yield* organizationEvents).length).toBe(before)

        const other = yield* createEvent(server, { name: "Other" })
        const path = `/app/events/${other.eventId}/edit`
        const edit = yield* browser.post(path, change(formFields((yield* browser.get(path)).html), { primarySlug: taken.primarySlug }))
        expect(edit.status).toBe(409)
        expect(expectStatus(yield* server.request("GET", `/event/${other.eventId}`), 200).body).toEqual(other)
      }))
  })

  describe("registration, reminders, reply-to and the end", () => {
    it.scoped("the form creates and edits them, in the event's time zone; the page shows them; webhooks hear what changed", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const browser = yield* admin
        const blank = (yield* browser.get("/app/events/new")).html
        // a new event's registration is open, without approval or reminders
        expect(blank).toMatch(/id="f-registrationOpen"[^>]*checked/)
        expect(blank).not.toMatch(/id="f-registrationApproval"[^>]*checked/)
        expect(blank).toContain("<legend><h2 class=\"legend-title\">Registration</h2></legend>")
        expect(formFields(blank).filter(([name]) => name === "reminders")).toEqual([["reminders", ""], ["reminders", ""], ["reminders", ""]])
        const created = yield* browser.post("/app/events", [
          ["name", "Registered Gala"],
          ["primaryDate", "2031-07-14T19:30"],
          ["endDate", "2031-07-14T23:00"],
          ["timezone", "America/New_York"],
          ["registrationClosesAt", "2031-07-10T12:00"],
          ["registrationApproval", "on"],
          ["reminders", "P1D"],
          ["reminders", ""],
          ["reminders", "PT2H"],
          ["replyTo", "gala@example.org"]
        ])
        const eventId = eventIdOf(created)
        const event = expectStatus(yield* server.request("GET", `/event/${eventId}`), 200).body
        expect(event).toMatchObject({
          primaryDate: "2031-07-14T19:30:00-04:00",
          endDate: "2031-07-14T23:00:00-04:00",
          // not ticked: closed
          registrationOpen: false,
          registrationClosesAt: "2031-07-10T12:00:00-04:00",
          registrationApproval: true,
          reminders: ["P1D", "PT2H"],
          replyTo: "gala@example.org"
        })
        const page = textOf((yield* browser.get(created.location!)).html)
        expect(page).toContain("Ends Mon, Jul 14, 2031, 11:00 PM EDT")
        expect(page).toContain("Registration Closed Approval Needed: registrations wait as Pending Reminders 1 day before 2 hours before Reply-to gala@example.org")

        // the edit form shows them as stored; saved unchanged, nothing changes
        const hook = yield* receiver
        expectStatus(yield* server.request("POST", "/webhook", { body: { webhook: hook.url("/event"), type: "Event" } }), 200)
        const path = `/app/events/${eventId}/edit`
        const fields = formFields((yield* browser.get(path)).html)
        expect(fields.filter(([name]) => name === "reminders")).toEqual([["reminders", "P1D"], ["reminders", "PT2H"], ["reminders", ""]])
        expect(fields).toEqual(expect.arrayContaining([["endDate", "2031-07-14T23:00"], ["registrationClosesAt", "2031-07-10T12:00"], ["replyTo", "gala@example.org"]]))
        const unchanged = yield* browser.post(path, fields)
        expect(unchanged.status).toBe(303)
        expect(expectStatus(yield* server.request("GET", `/event/${eventId}`), 200).body).toEqual(event)
        // reopened, no approval, one reminder, no end; a new zone moves the closing time too
        const edited = yield* browser.post(path, [
          ...change(fields, { registrationOpen: "on", registrationApproval: null, endDate: "", timezone: "Europe/Paris", primaryDate: "2031-07-15T01:30" })
            .filter(([name]) => name !== "reminders"),
          ["reminders", "P1W"]
        ])
        expect(edited.status, edited.html.slice(0, 2000)).toBe(303)
        expect(expectStatus(yield* server.request("GET", `/event/${eventId}`), 200).body).toMatchObject({
          primaryDate: event.primaryDate,
          timezone: "Europe/Paris",
          endDate: null,
          registrationOpen: true,
          registrationClosesAt: "2031-07-10T12:00:00+02:00",
          registrationApproval: false,
          reminders: ["P1W"]
        })
        const notification = yield* hook.next()
        expect([...notification.json.data.updatedFields].sort()).toEqual(
          ["endDate", "registrationApproval", "registrationClosesAt", "registrationOpen", "reminders", "timezone"]
        )
        expect(hook.received).toHaveLength(1)
      }))

    it.effect("refuses an end before the start, the same reminder twice and a reply-to that is no email, at their fields", () =>
      Effect.gen(function*() {
        const browser = yield* admin
        const before = (yield* organizationEvents).length
        const page = yield* browser.post("/app/events", [
          ["name", "Backwards"],
          ["primaryDate", "2031-02-20T10:00"],
          ["endDate", "2031-02-20T09:00"],
          ["timezone", "UTC"],
          ["registrationOpen", "on"],
          ["registrationClosesAt", "2031-02-30T10:00"],
          ["reminders", "P1D"],
          ["reminders", "PT24H"],
          ["replyTo", "nobody"]
        ])
        expect(page.status).toBe(400)
        expect(errorTexts(page.html)).toEqual([
          "Registration closes must be a real date and time",
          "Reminder 2 is the same time as reminder 1",
          "Reply-to email must be an email address"
        ])
        expect(page.html).toMatch(/id="f-replyTo"[^>]*aria-invalid="true"/)
        expect(page.html).toContain("href=\"#f-reminders\"")
        expect(page.html).toContain("value=\"nobody\"")
        // the order of the dates is the service's check, once the fields are well formed
        const backwards = yield* browser.post("/app/events", [
          ["name", "Backwards"],
          ["primaryDate", "2031-02-20T10:00"],
          ["endDate", "2031-02-20T09:00"],
          ["timezone", "UTC"]
        ])
        expect(backwards.status).toBe(400)
        expect(errorTexts(backwards.html)).toEqual(["End must be after the start"])
        expect(backwards.html).toContain("value=\"2031-02-20T09:00\"")
        expect((yield* organizationEvents).length).toBe(before)
      }))
  })

  describe("the list", () => {
    it.effect("shows upcoming events soonest first and past ones latest first, searches names, and pages", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const browser = yield* admin
        const tag = `Lst${process.pid}`
        for (const days of [3, 1, 2]) yield* createEvent(server, { name: `${tag} upcoming ${days}`, primaryDate: daysFromNow(days) })
        for (const days of [-3, -1, -2]) yield* createEvent(server, { name: `${tag} past ${-days}`, primaryDate: daysFromNow(days) })
        const order = (html: string, names: ReadonlyArray<string>) => names.map((n) => html.indexOf(n))

        const upcoming = yield* browser.get(`/app/events?q=${tag.toLowerCase()}`)
        expect(upcoming.status).toBe(200)
        const up = order(upcoming.html, [`${tag} upcoming 1`, `${tag} upcoming 2`, `${tag} upcoming 3`])
        expect(up.every((i) => i > 0)).toBe(true)
        expect([...up].sort((a, b) => a - b)).toEqual(up)
        expect(upcoming.html).not.toContain(`${tag} past`)

        const past = yield* browser.get(`/app/events?when=past&q=${tag.toUpperCase()}`)
        const down = order(past.html, [`${tag} past 1`, `${tag} past 2`, `${tag} past 3`])
        expect(down.every((i) => i > 0)).toBe(true)
        expect([...down].sort((a, b) => a - b)).toEqual(down)
        expect(past.html).not.toContain(`${tag} upcoming`)

        // names with letters beyond ASCII are found as typed, and a "%" is only a percent sign
        yield* createEvent(server, { name: `École d’été ${tag} 100%` })
        expect((yield* browser.get(`/app/events?q=${encodeURIComponent(`École d’été ${tag.toLowerCase()}`)}`)).html).toContain(`École d’été ${tag}`)
        expect((yield* browser.get(`/app/events?q=${encodeURIComponent(`${tag} 100%`)}`)).html).toContain(`École d’été ${tag}`)
        expect((yield* browser.get(`/app/events?q=${encodeURIComponent(`${tag} 10%0`)}`)).html).not.toContain(`École d’été ${tag}`)

        const none = yield* browser.get(`/app/events?q=${tag}-nothing`)
        expect(none.html).toContain("No upcoming events match")

        const many = `Pg${process.pid}`
        for (let i = 0; i < 22; i++) yield* createEvent(server, { name: `${many} event ${String(i).padStart(2, "0")}`, primaryDate: daysFromNow(10 + i) })
        const first = yield* browser.get(`/app/events?q=${many}`)
        expect(first.html.match(/class="event-item"/g)).toHaveLength(20)
        expect(first.html).toContain("1–20 of 22 events")
        const second = yield* browser.get(`/app/events?q=${many}&skip=20`)
        expect(second.html.match(/class="event-item"/g)).toHaveLength(2)
        expect(second.html).toContain(`${many} event 21`)
      }))
  })

  describe("escaping", () => {
    it.effect("names and descriptions render as text on the list, the event page and the form", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const browser = yield* admin
        const name = `<script>alert("x${process.pid}")</script><img src=x onerror=alert(1)>`
        const eventId = eventIdOf(
          yield* browser.post("/app/events", [
            ["name", name],
            ["primaryDate", "2031-05-05T10:00"],
            ["timezone", "UTC"],
            ["rsvpDescription", "<b onmouseover=alert(2)>bold</b>\r\n\"quoted\" & 'single'"],
            ["eventTags", "<i>tag</i>"],
            ["customColumns", "</textarea><script>alert(3)</script>"]
          ])
        )
        expect(expectStatus(yield* server.request("GET", `/event/${eventId}`), 200).body.name).toBe(name)
        const pages = [
          yield* browser.get(`/app/events?q=${encodeURIComponent(`x${process.pid}`)}`),
          yield* browser.get(`/app/events/${eventId}`),
          yield* browser.get(`/app/events/${eventId}/edit`)
        ]
        for (const page of pages) {
          expect(page.status).toBe(200)
          expect(page.html).not.toContain("<script>alert")
          expect(page.html).not.toContain("<img src=x")
          expect(page.html).not.toContain("<b onmouseover")
          expect(page.html).not.toContain("<i>tag</i>")
          expect(page.html).toContain("&lt;script>alert")
        }
        // the edit form gives back exactly what was stored
        const fields = formFields(pages[2]!.html)
        expect(fields).toContainEqual(["name", name])
        expect(fields).toContainEqual(["customColumns", "</textarea><script>alert(3)</script>"])
      }))
  })
})
