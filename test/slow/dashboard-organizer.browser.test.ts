/**
 * An organizer's day in Chromium (docs/integrators.md#events, docs/integrators.md#guest-lists, docs/integrators.md#the-dashboard): an Admin creates an event with every group
 * of the form, edits it, adds three guests (a contact and two new people), changes statuses (one
 * guest, then a selection), reads a guest's history and copies their invite link; door staff check
 * a guest in on a phone-sized touch screen and undo it, as the API and the webhooks see it. Then
 * the same main flow with JavaScript off. Elements are found by role and accessible name.
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import type { Page } from "playwright-core"
import { browser } from "../support/Browser.js"
import { addMember, expectQuiet, follow, newOrganization, type Organization, signedInContext } from "../support/Dashboard.js"
import { receiver } from "../support/Receiver.js"
import { TestServer, liveServer } from "../support/TestServer.js"

type Json = Record<string, any>

/** The REST API as the organization's integration calls it. */
const restOf = (url: string, org: Organization) => async (method: string, path: string, body?: unknown) => {
  const response = await fetch(url + path, {
    method,
    headers: { "x-api-key": org.token, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  const text = await response.text()
  expect(response.status, `${method} ${path}: ${text}`).toBe(200)
  return JSON.parse(text) as Json
}

/** The flash message of the page shown (success: `status`, error: `alert`). */
const flash = (page: Page) => page.locator("main .flash").first().innerText()

const h1 = (page: Page) => page.getByRole("heading", { level: 1 }).innerText()

layer(liveServer({ WEBHOOK_RETRY_SCHEDULE: "100ms", WEBHOOK_TIMEOUT: "2 seconds" }), { excludeTestServices: true })("an organizer in Chromium", (it) => {
  it.scoped("creates and edits an event, adds guests, changes statuses, copies an invite link, and checks a guest in on a phone", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const org = yield* newOrganization(server, "organizer")
      const organizer = yield* addMember(org, "Admin", { firstName: "Olive", lastName: "Organizer" })
      const cohost = yield* addMember(org, "Team Member", { firstName: "Grace", lastName: "Hopper" })
      const door = yield* addMember(org, "Team Member", { firstName: "Dora", lastName: "Door" })
      const hook = yield* receiver
      const chromium = yield* browser
      const rest = restOf(server.url, org)

      yield* Effect.promise(async () => {
        const ada = await fetch(`${server.url}/person`, {
          method: "POST",
          headers: { "x-api-key": org.token, "content-type": "application/json" },
          body: JSON.stringify({ firstName: "Ada", lastName: "Lovelace", email: `ada.${org.slug}@example.com` })
        }).then((r) => r.json() as Promise<Json>)
        const { context, page, watched } = await signedInContext(chromium, server.url, organizer, { viewport: { width: 1280, height: 900 } })
        await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.url })
        const favicon = new URL(await page.locator("link[rel=icon]").getAttribute("href") ?? "", server.url).href

        // ---- a new event, every group of the form ----
        expect(await h1(page)).toBe("Events")
        expect(await page.getByText("No events yet").count()).toBe(1)
        await page.getByRole("link", { name: "New event" }).first().click()
        expect(await h1(page)).toBe("New event")
        const group = (name: string) => page.getByRole("group", { name, exact: true })
        await page.getByRole("textbox", { name: "Name", exact: true }).fill("Harbor Lights Gala")
        await page.getByLabel("Tags", { exact: true }).fill("gala\nfundraiser")
        await page.getByLabel("Public event", { exact: true }).check()
        await page.getByLabel("Date and time").fill("2031-09-14T18:30")
        await page.getByLabel("Time zone", { exact: true }).selectOption("Europe/Berlin")
        await page.getByLabel("Place", { exact: true }).fill("Harbor Hall")
        await page.getByLabel("Address", { exact: true }).fill("Kai 1")
        await page.getByLabel("Apartment, suite or floor", { exact: true }).fill("Floor 2")
        await page.getByLabel("City", { exact: true }).fill("Hamburg")
        await page.getByLabel("State or province", { exact: true }).fill("HH")
        await page.getByLabel("Postal code", { exact: true }).fill("20457")
        await page.getByLabel("Country", { exact: true }).fill("Germany")
        await page.getByLabel("Phone number", { exact: true }).fill("+49 40 123456")
        await page.getByLabel("Website", { exact: true }).fill("https://harbor.example.org/")
        await group("Online location 1").getByLabel("Link", { exact: true }).fill("https://meet.example.org/gala")
        await group("Online location 1").getByLabel("Platform", { exact: true }).fill("meet")
        await group("Online location 1").getByLabel("Password", { exact: true }).fill("lights")
        await group("Online location 1").getByLabel("Dial-in number", { exact: true }).fill("+49 40 999")
        await page.getByLabel("Page address", { exact: true }).fill(`harbor-lights-${org.slug}`)
        await page.getByLabel("Description", { exact: true }).fill("Lanterns on the water.\nMusic until late.")
        await group("Question 1").getByLabel("Question", { exact: true }).fill("Which boat do you arrive on?")
        await group("Question 1").getByLabel("Help text", { exact: true }).fill("We meet you at the pier")
        await page.getByLabel("Link preview description", { exact: true }).fill("A night of lights")
        await page.getByLabel("Featured image", { exact: true }).fill(favicon)
        await group("Image 1").getByLabel("Type", { exact: true }).fill("logo")
        await group("Image 1").getByLabel("URL", { exact: true }).fill(favicon)
        await page.getByLabel("Limit the number of guests", { exact: true }).check()
        await page.getByLabel("Capacity", { exact: true }).fill("100")
        await page.getByLabel("Ticketing", { exact: true }).check()
        await page.getByLabel("Columns", { exact: true }).fill("Table\nBadge")
        await page.getByLabel("Grace Hopper (Team Member)").check()
        await page.getByRole("button", { name: "Create event" }).click()
        await page.waitForURL(/\/app\/events\/[^/]+$/)
        expect(await flash(page)).toBe("Event “Harbor Lights Gala” created. Next, add guests from its guest list.")
        expect(await h1(page)).toBe("Harbor Lights Gala")
        const eventId = new URL(page.url()).pathname.split("/").at(-1)!
        const created = await rest("GET", `/event/${eventId}`)
        expect(created).toMatchObject({
          name: "Harbor Lights Gala",
          timezone: "Europe/Berlin",
          isPublic: true,
          primarySlug: `harbor-lights-${org.slug}`,
          eventTags: ["gala", "fundraiser"],
          locationName: "Harbor Hall",
          locationAddress: "Kai 1",
          locationApartment: "Floor 2",
          locationCity: "Hamburg",
          locationState: "HH",
          locationPostalCode: "20457",
          locationCountry: "Germany",
          locationPhoneNumber: "+49 40 123456",
          locationWebsite: "https://harbor.example.org/",
          virtualLocations: [{ url: "https://meet.example.org/gala", sourceType: "meet", password: "lights", phoneNumber: "+49 40 999" }],
          rsvpDescription: "Lanterns on the water.\nMusic until late.",
          rsvpQuestions: [{ title: "Which boat do you arrive on?", description: "We meet you at the pier" }],
          linkPreviewDescription: "A night of lights",
          featuredImage: favicon,
          images: [{ type: "logo", url: favicon }],
          capacityEnabled: true,
          capacity: 100,
          ticketingEnabled: true,
          customColumns: ["Table", "Badge"]
        })
        expect(Date.parse(created.primaryDate)).toBe(Date.parse("2031-09-14T16:30:00Z"))
        expect(created.hostUserIds).toEqual(expect.arrayContaining([organizer.userId, cohost.userId]))
        // the event page shows it, in the event's own zone
        const shown = await page.locator("main").innerText()
        for (const text of ["Harbor Hall", "Kai 1", "20457 Hamburg", "https://meet.example.org/gala", "Which boat do you arrive on?", "At most 100 guests."]) {
          expect(shown).toContain(text)
        }

        // ---- edit it ----
        await page.getByRole("link", { name: "Edit event" }).click()
        expect(await h1(page)).toBe("Edit “Harbor Lights Gala”")
        expect(await page.getByRole("textbox", { name: "Name", exact: true }).inputValue()).toBe("Harbor Lights Gala")
        expect(await page.getByLabel("Date and time").inputValue()).toBe("2031-09-14T18:30")
        await page.getByRole("textbox", { name: "Name", exact: true }).fill("Harbor Lights Gala 2031")
        await page.getByLabel("Capacity", { exact: true }).fill("120")
        await page.getByRole("button", { name: "Save changes" }).click()
        await page.waitForURL(new RegExp(`/app/events/${eventId}$`))
        expect(await flash(page)).toMatch(/^Saved “Harbor Lights Gala 2031”: (Name, capacity|Capacity, name)\.$/)
        expect(await rest("GET", `/event/${eventId}`)).toMatchObject({ name: "Harbor Lights Gala 2031", capacity: 120, locationCity: "Hamburg" })

        // ---- three guests: a contact, then two new people ----
        await page.getByRole("link", { name: "Guest list", exact: true }).click()
        expect(await h1(page)).toBe("Guest list")
        expect(await page.getByText("No guests yet").count()).toBe(1)
        await page.getByRole("link", { name: "Add guests" }).first().click()
        expect(await h1(page)).toBe("Add guests")
        await page.getByLabel("Search contacts").fill("Lovelace")
        await page.getByLabel("Search contacts").press("Enter")
        await page.waitForURL(/contact=Lovelace/)
        await page.getByRole("checkbox", { name: /Ada Lovelace/ }).check()
        await page.getByRole("button", { name: "Add selected contacts" }).click()
        await page.waitForURL(/contact=Lovelace/)
        expect(await flash(page)).toBe("Added 1 guest: Ada Lovelace.")
        const newGuest = async (first: string, last: string) => {
          await page.getByLabel("Email").fill(`${first.toLowerCase()}.${org.slug}@example.com`)
          await page.getByLabel("First name").fill(first)
          await page.getByLabel("Last name").fill(last)
          await follow(page, page.getByRole("button", { name: "Add guest", exact: true }))
          expect(await flash(page)).toBe(`${first} ${last} added to the guest list.`)
        }
        await newGuest("Katherine", "Johnson")
        await newGuest("Dorothy", "Vaughan")
        await page.getByRole("link", { name: "Guest list", exact: true }).click()
        expect(await page.locator("main").innerText()).toContain("3 guests on the list")
        let guests = (await rest("GET", `/event/${eventId}/guestlist`)).guests as Array<Json>
        const byName = (name: string) => guests.find((g) => g.name === name)!
        expect(guests.map((g) => [g.name, g.rsvpStatus])).toEqual([["Ada Lovelace", "Invited"], ["Katherine Johnson", "Invited"], ["Dorothy Vaughan", "Invited"]])
        expect(byName("Ada Lovelace").personId).toBe(ada.personId)

        // ---- statuses: one guest on their page, then a selection ----
        await page.getByRole("link", { name: "Details of Ada Lovelace" }).click()
        expect(await h1(page)).toBe("Ada Lovelace")
        await page.getByLabel("RSVP status").selectOption("Accepted")
        await follow(page, page.getByRole("button", { name: "Save RSVP" }))
        expect(await flash(page)).toBe("RSVP status of Ada Lovelace set to Accepted.")
        await page.getByRole("link", { name: "Guest list", exact: true }).click()
        await page.getByRole("checkbox", { name: "Select Katherine Johnson" }).check()
        await page.getByRole("checkbox", { name: "Select Dorothy Vaughan" }).check()
        await page.getByLabel("With the selected guests").selectOption({ label: "Maybe" })
        await follow(page, page.getByRole("button", { name: "Apply" }))
        expect(await flash(page)).toBe("RSVP status set to Maybe for 2 guests: Katherine Johnson, Dorothy Vaughan.")
        const table = await page.getByRole("table").innerText()
        expect(table).toMatch(/Katherine Johnson[\s\S]*Maybe/)
        guests = (await rest("GET", `/event/${eventId}/guestlist`)).guests as Array<Json>
        expect(guests.map((g) => [g.name, g.rsvpStatus])).toEqual([["Ada Lovelace", "Accepted"], ["Katherine Johnson", "Maybe"], ["Dorothy Vaughan", "Maybe"]])
        for (const g of guests) {
          expect(g.rsvpStatusHistory.map((h: Json) => [h.status, h.actorType, h.actorId])).toEqual([
            ["Invited", "user", organizer.userId],
            [g.rsvpStatus, "user", organizer.userId]
          ])
        }

        // ---- a guest's history, and their invite link copied ----
        await page.getByRole("link", { name: "Details of Ada Lovelace" }).click()
        const history = page.getByRole("table", { name: "RSVP history of Ada Lovelace, newest first" })
        const rows = await history.getByRole("row").allInnerTexts()
        expect(rows.slice(1).map((r) => r.replace(/\s+/g, " ").trim())).toEqual([
          expect.stringMatching(/^Accepted You /),
          expect.stringMatching(/^Invited Added to the list You /)
        ])
        await follow(page, page.getByRole("button", { name: "Create invite link" }))
        expect(await flash(page)).toBe("Invite link of Ada Lovelace created. Copy it below.")
        const link = await page.getByLabel("Personal RSVP link of Ada Lovelace").inputValue()
        expect(link).toMatch(new RegExp(`^https://convene\\.test/rsvp/harbor-lights-${org.slug}\\?invite=[A-Za-z0-9_-]{22,}$`))
        await page.getByRole("button", { name: "Copy" }).click()
        expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(link)
        // announced in the page's live region for scripts, where screen readers hear it; the flash stays
        await expect.poll(() => page.locator("#announcer[aria-live=polite]").innerText()).toBe("Copied to the clipboard")
        expect(((await rest("GET", `/event/${eventId}/guestlist`)).guests as Array<Json>).find((g) => g.personId === ada.personId)!.rsvpLink).toBe(link)
        expectQuiet(watched, "organizer")
        await context.close()

        // ---- the door, on a phone: 360 × 740, touch ----
        await rest("POST", "/webhook", { webhook: hook.url("/person"), type: "EventPerson" })
        const phone = await signedInContext(chromium, server.url, door, { viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true })
        const p = phone.page
        await p.goto(`${server.url}/app/events/${eventId}`)
        await p.getByRole("link", { name: "Check-in (door mode)" }).tap()
        // the door's own page: its heading names the event too
        expect(await h1(p)).toMatch(/^Check-in\b/)
        expect(await p.locator("#door-counts").innerText()).toMatch(/0\s+checked in\s+of\s+1\s+expected/)
        // live search narrows the list as the name is typed
        await p.getByLabel("Find a guest").fill("lovelace")
        await expect.poll(() => p.locator("#door-results").innerText()).toContain("1 guest matches “lovelace”")
        expect(await p.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360)
        await p.getByRole("button", { name: "Check in Ada Lovelace" }).tap()
        // with scripts, answered without a page load (test/slow/door.browser.test.ts has the details)
        await expect.poll(() => p.locator("#door-result").innerText()).toContain("Ada Lovelace checked in.")
        expect(await p.locator("#door-counts").innerText()).toMatch(/1\s+checked in\s+of\s+1\s+expected/)
        let checked = ((await rest("GET", `/event/${eventId}/guestlist`)).guests as Array<Json>).find((g) => g.personId === ada.personId)!
        expect(checked.attendanceStatus).toBe("Attended")
        // no RSVP history entry for a check-in
        expect(checked.rsvpStatusHistory).toHaveLength(2)
        await expect.poll(() => hook.received.length, { timeout: 10_000 }).toBe(1)
        expect(hook.received[0]!.json[0]).toMatchObject({ personId: ada.personId, attendanceStatus: "Attended", rsvpStatus: "Accepted" })

        // undo, from the answer at the top
        await p.getByRole("button", { name: "Undo check-in of Ada Lovelace" }).first().tap()
        await expect.poll(() => p.locator("#door-result").innerText()).toContain("Check-in of Ada Lovelace undone.")
        checked = ((await rest("GET", `/event/${eventId}/guestlist`)).guests as Array<Json>).find((g) => g.personId === ada.personId)!
        expect(checked.attendanceStatus).toBeNull()
        await expect.poll(() => hook.received.length, { timeout: 10_000 }).toBe(2)
        expect(hook.received[1]!.json[0]).toMatchObject({ personId: ada.personId, attendanceStatus: null })
        expect(await p.getByRole("button", { name: "Check in Ada Lovelace" }).count()).toBe(1)
        expectQuiet(phone.watched, "door")
        await phone.context.close()
      })
    }), 90_000)

  it.scoped("the main flow with JavaScript off: sign in, create an event, add a guest, check in, remove with a confirmation page", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const org = yield* newOrganization(server, "nojs")
      const organizer = yield* addMember(org, "Admin")
      const chromium = yield* browser
      const rest = restOf(server.url, org)
      yield* Effect.promise(async () => {
        const { context, page, watched } = await signedInContext(chromium, server.url, organizer, {
          javaScriptEnabled: false,
          viewport: { width: 1280, height: 900 }
        })
        expect(await h1(page)).toBe("Events")
        // the organization switcher's button shows when no script hides it
        expect(await page.getByRole("button", { name: "Switch" }).isVisible()).toBe(true)
        await page.getByRole("link", { name: "New event" }).first().click()
        await page.getByRole("textbox", { name: "Name", exact: true }).fill("No-script Night")
        await page.getByLabel("Date and time").fill("2031-05-01T19:00")
        await page.getByRole("button", { name: "Create event" }).click()
        await page.waitForURL(/\/app\/events\/[^/]+$/)
        expect(await flash(page)).toContain("Event “No-script Night” created.")
        const eventId = new URL(page.url()).pathname.split("/").at(-1)!

        await page.getByRole("link", { name: "Guest list", exact: true }).click()
        await page.getByRole("link", { name: "Add guests" }).first().click()
        await page.getByLabel("Email").fill(`nojs.${org.slug}@example.com`)
        await page.getByLabel("First name").fill("Noam")
        await page.getByLabel("Last name").fill("Script")
        await follow(page, page.getByRole("button", { name: "Add guest", exact: true }))
        expect(await flash(page)).toBe("Noam Script added to the guest list.")

        // the door: search by submitting the form, then one button
        await page.goto(`${server.url}/app/events/${eventId}/checkin`)
        await page.getByLabel("Find a guest").fill("noam")
        await page.getByRole("button", { name: "Search" }).click()
        await page.waitForURL(/q=noam/)
        expect(await page.locator("#door-results").innerText()).toContain("1 guest matches “noam”")
        // Noam was added as Invited, not Accepted: the door asks first, naming the status
        await follow(page, page.getByRole("button", { name: "Check in Noam Script" }))
        expect(await page.locator("#door-result").innerText()).toContain("Noam Script answered Invited, not Accepted.")
        await page.getByRole("button", { name: "Check in anyway (Invited)" }).click()
        await page.waitForURL(/done=CheckedIn/)
        expect(await page.locator("#door-result").innerText()).toContain("Noam Script checked in.")
        let guests = (await rest("GET", `/event/${eventId}/guestlist`)).guests as Array<Json>
        expect(guests.map((g) => [g.name, g.attendanceStatus])).toEqual([["Noam Script", "Attended"]])

        // a destructive action: without scripts, a confirmation page comes first
        await page.goto(`${server.url}/app/events/${eventId}/guests`)
        await page.getByRole("link", { name: "Details of Noam Script" }).click()
        // the copy button needs scripts; the link itself is still there to select
        await follow(page, page.getByRole("button", { name: "Create invite link" }))
        expect(await page.getByRole("button", { name: "Copy" }).count()).toBe(0)
        expect(await page.getByLabel("Personal RSVP link of Noam Script").inputValue()).toMatch(/\/rsvp\//)
        await follow(page, page.getByRole("button", { name: "Remove from the guest list" }))
        expect(await h1(page)).toBe("Remove Noam Script?")
        expect((await rest("GET", `/event/${eventId}/guestlist`)).guests).toHaveLength(1)
        await follow(page, page.getByRole("button", { name: "Remove Noam Script" }))
        expect(await flash(page)).toBe("Noam Script was removed from the guest list.")
        guests = (await rest("GET", `/event/${eventId}/guestlist`)).guests as Array<Json>
        expect(guests).toEqual([])
        expect(watched.dialogs).toEqual([])
        expectQuiet(watched, "without scripts")
        await context.close()
      })
    }), 60_000)
})
