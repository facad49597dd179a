/**
 * The dashboard's defences in Chromium and over HTTP (docs/integrators.md#roles, docs/integrators.md#the-dashboard): forms without the session's
 * CSRF token or from another origin change nothing; signing in always starts a new session (no
 * fixation); an idle, signed-out or password-changed session leads to the sign-in page; what
 * organizers and guests typed (markup, scripts, `javascript:` links) is shown as text and never
 * runs; every page carries the security headers; another organization's ids are unknown (404).
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import type { Page } from "playwright-core"
import { browser } from "../support/Browser.js"
import {
  addMember,
  dashboardClient,
  expectFetchedPageHeaders,
  expectPageHeaders,
  expectQuiet,
  expectRefusedLoads,
  follow,
  newOrganization,
  type Organization,
  pageCsrf,
  postFromPage,
  SESSION_COOKIE,
  sessionCookie,
  signedInContext,
  signIn,
  signInPage,
  textOf,
  watch
} from "../support/Dashboard.js"
import { TestServer, liveServer } from "../support/TestServer.js"

type Json = Record<string, any>

const restOf = (url: string, org: Organization) => async (method: string, path: string, body?: unknown, status = 200) => {
  const response = await fetch(url + path, {
    method,
    headers: { "x-api-key": org.token, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  const text = await response.text()
  expect(response.status, `${method} ${path}: ${text}`).toBe(status)
  return JSON.parse(text) as Json
}

const h1 = (page: Page) => page.getByRole("heading", { level: 1 }).innerText()

/** An organization with an Admin, an event and a guest on it. */
const withEvent = (label: string) =>
  Effect.gen(function*() {
    const server = yield* TestServer
    const org = yield* newOrganization(server, label)
    const admin = yield* addMember(org, "Super Admin")
    const rest = restOf(server.url, org)
    const { eventId, personId } = yield* Effect.promise(async () => {
      const event = await rest("POST", "/event", { name: `${label} party`, primaryDate: "2031-04-01T18:00:00Z", customColumns: ["Table"] })
      const { guests } = await rest("POST", `/event/${event.eventId}/guestlist`, { guests: [{ firstName: "Gus", lastName: "Guest", email: `gus.${org.slug}@example.com` }] })
      return { eventId: event.eventId as string, personId: guests[0].personId as string }
    })
    return { server, org, admin, rest, eventId, personId }
  })

/** Markup, scripts and links a hostile organizer, guest or integration might type. */
const XSS = {
  eventName: `<script>alert("event name")</script>`,
  description: `"><img src=x onerror=alert("description")>\n<iframe src="javascript:alert('frame')"></iframe>`,
  location: `<svg onload=alert("location")>`,
  city: `'><body onload=alert("city")>`,
  tag: `<b onmouseover=alert("tag")>tag</b>`,
  column: `<i onclick=alert("column")>Table</i>`,
  question: `</label><script>alert("question")</script>`,
  firstName: `<script>alert("first name")</script>`,
  lastName: `<img src=x onerror=alert("last name")>`,
  email: `"><svg/onload=alert("email")>@x.example`,
  columnValue: `<a href="javascript:alert('value')">x</a>`,
  note: `</dd><script>alert("note")</script>`,
  memberFirst: `<script>alert("member")</script>`,
  memberLast: `"><img src=x onerror=alert("member")>`,
  keyName: `<img src=x onerror=alert("key")>`
}

/** Nothing of what was typed became markup or script on the page shown. */
const expectInert = async (page: Page, label: string) => {
  const found = await page.evaluate(() => ({
    inlineScripts: document.querySelectorAll("script:not([src])").length,
    handlers: Array.from(document.querySelectorAll("*")).flatMap((el) =>
      Array.from(el.attributes).filter((a) => /^on/i.test(a.name)).map((a) => `${el.tagName} ${a.name}`)
    ),
    scriptLinks: Array.from(document.querySelectorAll("[href],[src],[action],[formaction]"))
      .flatMap((el) => ["href", "src", "action", "formaction"].map((a) => el.getAttribute(a) ?? ""))
      .filter((v) => /^\s*javascript:/i.test(v)),
    injected: document.querySelectorAll("img[src=x], iframe, svg, body b, main i").length
  }))
  expect(found, label).toEqual({ inlineScripts: 0, handlers: [], scriptLinks: [], injected: 0 })
}

layer(liveServer(), { excludeTestServices: true })("dashboard security in Chromium", (it) => {
  it.scoped("a form without the session's CSRF token, or from another origin, gets 403 and changes nothing", () =>
    Effect.gen(function*() {
      const { admin, eventId, personId, rest, server } = yield* withEvent("csrf")
      const chromium = yield* browser
      yield* Effect.promise(async () => {
        const before = await rest("GET", `/event/${eventId}/guestlist`)
        const { context, page, watched } = await signedInContext(chromium, server.url, admin, { viewport: { width: 1280, height: 900 } })
        // in the page: the bulk form with a wrong token, then with none
        for (const tamper of ["wrong", null] as const) {
          await page.goto(`${server.url}/app/events/${eventId}/guests`)
          await page.getByRole("checkbox", { name: "Select Gus Guest" }).check()
          await page.getByLabel("With the selected guests").selectOption({ label: "Declined" })
          await page.locator("form#bulk input[name=_csrf]").evaluate((input, value) => {
            if (value === null) input.remove()
            else (input as HTMLInputElement).value = value
          }, tamper)
          const [response] = await Promise.all([page.waitForResponse((r) => r.request().method() === "POST"), page.getByRole("button", { name: "Apply" }).click()])
          expect(response.status()).toBe(403)
          expect(await h1(page)).toBe("This form expired")
        }
        expectRefusedLoads(watched, 403)
        expect(await rest("GET", `/event/${eventId}/guestlist`)).toEqual(before)
        expectQuiet(watched, "csrf")
        await context.close()
      })

      // over HTTP: a valid session, each check failing in turn
      const client = yield* signIn(server.url, admin)
      const fields: Array<[string, string]> = [["action", "rsvp:Declined"], ["personId", personId]]
      const bulk = `/app/events/${eventId}/guests/bulk`
      const refused = [
        yield* client.post(bulk, fields, { csrf: null }),
        yield* client.post(bulk, fields, { csrf: "wrong" }),
        yield* client.post(bulk, fields, { csrf: "" }),
        yield* client.post(bulk, fields, { origin: "https://evil.example" }),
        yield* client.post(bulk, fields, { origin: "null" }),
        yield* client.post(bulk, fields, { origin: null }),
        yield* client.post(bulk, fields, { origin: null, referer: "https://evil.example/app/events" }),
        yield* client.post("/app/events", [["name", "Forged"], ["primaryDate", "2031-01-01T10:00"], ["timezone", "UTC"]], { csrf: null }),
        yield* client.post("/app/team/api-keys", [["name", "Forged"]], { origin: "https://evil.example" })
      ]
      expect(refused.map((r) => r.status)).toEqual(refused.map(() => 403))
      for (const reply of refused) expect(textOf(reply.html)).toContain("This form expired")
      const after = yield* Effect.promise(async () => ({
        guests: await rest("GET", `/event/${eventId}/guestlist`),
        events: (await rest("GET", "/event?showOrganizationEvents=true")).events.length,
        tokens: (await rest("GET", "/api-token")).tokens.length
      }))
      expect(after.guests.guests[0].rsvpStatus).toBe("Invited")
      expect([after.events, after.tokens]).toEqual([1, 1])
      // the sign-in form has its own token (a cookie and the field): without them, no session
      const bare = yield* Effect.promise(() =>
        fetch(`${server.url}/app/login`, {
          method: "POST",
          redirect: "manual",
          headers: { origin: server.url, "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({ email: admin.email, password: admin.password }).toString()
        })
      )
      expect(bare.status).toBe(403)
      expect(bare.headers.getSetCookie().some((c) => c.startsWith(`${SESSION_COOKIE}=`) && !c.startsWith(`${SESSION_COOKIE}=;`))).toBe(false)
      // a browser that sends no Origin but a Referer of the service's own page is fine
      const viaReferer = yield* client.post(bulk, fields, { origin: null, referer: `${server.url}/app/events/${eventId}/guests` })
      expect(viaReferer.status).toBe(303)
    }), 60_000)

  it.scoped("signing in always starts a new session: a cookie set before it, even a live one, is not the one after", () =>
    Effect.gen(function*() {
      const { admin, server } = yield* withEvent("fixation")
      const attacker = yield* addMember((yield* newOrganization(server, "attacker")), "Super Admin")
      const chromium = yield* browser
      // the attacker's own live session, and an id made up
      const attackerClient = yield* signIn(server.url, attacker)
      const live = attackerClient.session()!
      yield* Effect.promise(async () => {
        for (const planted of ["A".repeat(43), live]) {
          const context = await chromium.newContext()
          context.setDefaultTimeout(10_000)
          await context.addCookies([{ name: SESSION_COOKIE, value: planted, url: server.url, httpOnly: true, sameSite: "Lax" }])
          const page = await context.newPage()
          const watched = watch(page)
          if (planted === live) {
            // the planted session is signed in already: a victim's sign-in form, posted from another tab
            await page.goto(`${server.url}/app/account`)
            expect(await page.locator("main").innerText()).toContain(attacker.email)
            await context.clearCookies({ name: SESSION_COOKIE })
            await page.goto(`${server.url}/app/login`)
            await context.addCookies([{ name: SESSION_COOKIE, value: planted, url: server.url, httpOnly: true, sameSite: "Lax" }])
            await page.getByLabel("Email").fill(admin.email)
            await page.getByLabel("Password").fill(admin.password)
            await follow(page, page.getByRole("button", { name: "Sign in" }))
          } else {
            await signInPage(page, server.url, admin)
          }
          const after = await sessionCookie(context)
          expect(after).toBeDefined()
          expect(after).not.toBe(planted)
          await page.goto(`${server.url}/app/account`)
          expect(await page.locator("main").innerText()).toContain(admin.email)
          expectQuiet(watched, "fixation")
          await context.close()
        }
      })
      // the attacker's session is still the attacker's own, and nobody else's
      const mine = yield* attackerClient.get("/app/account")
      expect(textOf(mine.html)).toContain(attacker.email)
      expect(textOf(mine.html)).not.toContain(admin.email)
    }), 60_000)

  it.scoped("a session ended by signing out elsewhere, or by a password change, leads to the sign-in page and its forms change nothing", () =>
    Effect.gen(function*() {
      const { admin, eventId, rest, server } = yield* withEvent("revoked")
      const chromium = yield* browser
      yield* Effect.promise(async () => {
        // two windows of one session: the first shows the add-guest form, the second signs out
        const one = await signedInContext(chromium, server.url, admin)
        await one.page.goto(`${server.url}/app/events/${eventId}/guests/add`)
        const two = await chromium.newContext({ storageState: await one.context.storageState() })
        const other = await two.newPage()
        await other.goto(`${server.url}/app/account`)
        await follow(other, other.getByRole("button", { name: "Sign out", exact: true }))
        expect(await other.locator("main").innerText()).toContain("You are signed out.")
        await two.close()
        // the first window's form now leads to the sign-in page and adds nobody
        const before = await rest("GET", `/event/${eventId}/guestlist`)
        await one.page.getByLabel("Email").fill("late@example.com")
        await one.page.getByLabel("First name").fill("Late")
        await one.page.getByLabel("Last name").fill("Comer")
        await follow(one.page, one.page.getByRole("button", { name: "Add guest", exact: true }))
        expect(new URL(one.page.url()).pathname).toBe("/app/login")
        expect(await one.page.locator("main").innerText()).toContain("Your session ended. Please sign in again.")
        expect(await rest("GET", `/event/${eventId}/guestlist`)).toEqual(before)
        await one.page.goto(`${server.url}/app/events`)
        expect(new URL(one.page.url()).pathname).toBe("/app/login")
        expectQuiet(one.watched, "signed out elsewhere")
        await one.context.close()

        // two sessions of one user; a password change in one ends both
        const here = await signedInContext(chromium, server.url, admin)
        const there = await signedInContext(chromium, server.url, admin)
        await there.page.goto(`${server.url}/app/account`)
        const newPassword = "a brand new password"
        await there.page.getByLabel("Current password").fill(admin.password)
        await there.page.getByLabel(/^New password\s*\*?$/).fill(newPassword)
        await there.page.getByLabel("New password again").fill(newPassword)
        await follow(there.page, there.page.getByRole("button", { name: "Change password" }))
        expect(await there.page.locator("main").innerText()).toContain("Your password was changed. Please sign in with the new one.")
        await here.page.goto(`${server.url}/app/events/${eventId}`)
        expect(new URL(here.page.url()).pathname).toBe("/app/login")
        expect(new URL(here.page.url()).searchParams.get("next")).toBe(`/app/events/${eventId}`)
        expect(await here.page.locator("main").innerText()).toContain("Your session ended. Please sign in again.")
        // signing in again leads back to the page asked for
        await here.page.getByLabel("Email").fill(admin.email)
        await here.page.getByLabel("Password").fill(newPassword)
        await follow(here.page, here.page.getByRole("button", { name: "Sign in" }))
        expect(new URL(here.page.url()).pathname).toBe(`/app/events/${eventId}`)
        expectQuiet(here.watched, "password changed")
        await here.context.close()
        await there.context.close()
      })
    }), 60_000)

  it.scoped("what organizers, guests and integrations typed is shown as text on every page and never runs", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const org = yield* newOrganization(server, "xss")
      const owner = yield* addMember(org, "Super Admin", { firstName: XSS.memberFirst, lastName: XSS.memberLast })
      const chromium = yield* browser
      const rest = restOf(server.url, org)
      yield* Effect.promise(async () => {
        // `javascript:` is refused wherever the API takes a URL, so only text can carry markup
        for (const field of ["locationWebsite", "featuredImage"]) {
          const refused = await rest("POST", "/event", { name: "x", primaryDate: "2031-01-01T00:00:00Z", [field]: "javascript:alert(1)" }, 400)
          expect(refused.code).toBe("invalid_request")
        }
        await rest("POST", "/event", { name: "x", primaryDate: "2031-01-01T00:00:00Z", images: [{ type: "logo", url: "javascript:alert(1)" }] }, 400)
        await rest("POST", "/event", { name: "x", primaryDate: "2031-01-01T00:00:00Z", virtualLocations: [{ url: "javascript:alert(1)" }] }, 400)

        const event = await rest("POST", "/event", {
          name: XSS.eventName,
          primaryDate: "2031-06-01T18:00:00Z",
          rsvpDescription: XSS.description,
          linkPreviewDescription: XSS.description,
          locationName: XSS.location,
          locationCity: XSS.city,
          eventTags: [XSS.tag],
          customColumns: [XSS.column],
          rsvpQuestions: [{ title: XSS.question, description: XSS.question }],
          virtualLocations: [{ sourceType: XSS.location, password: XSS.city, phoneNumber: XSS.tag }]
        })
        const base = `${server.url}/app/events/${event.eventId}`
        const { guests } = await rest("POST", `/event/${event.eventId}/guestlist`, {
          guests: [{ firstName: XSS.firstName, lastName: XSS.lastName, email: XSS.email }]
        })
        const personId = guests[0].personId as string
        const key = await rest("POST", "/api-token", { name: XSS.keyName })
        await rest("PUT", `/event/${event.eventId}/guestlist`, {
          guests: [{ personId, rsvpStatus: "Accepted", rsvpNote: XSS.note, dietaryRestrictions: [XSS.tag], customColumns: { [XSS.column]: XSS.columnValue } }]
        }, 200)
        // the key acted: the guest's history names it
        expect(key.token).toMatch(/^cvn_/)
        await fetch(`${server.url}/event/${event.eventId}/guestlist`, {
          method: "PUT",
          headers: { "x-api-key": key.token, "content-type": "application/json" },
          body: JSON.stringify({ guests: [{ personId, rsvpStatus: "Maybe" }] })
        })

        const { context, page, watched } = await signedInContext(chromium, server.url, owner, { viewport: { width: 1280, height: 900 } })
        const guestName = `${XSS.firstName} ${XSS.lastName}`
        const memberName = `${XSS.memberFirst} ${XSS.memberLast}`
        const pages: Array<[string, ReadonlyArray<string>]> = [
          [`${server.url}/app/events`, [XSS.eventName, XSS.location, XSS.tag, memberName]],
          [`${server.url}/app/events?q=${encodeURIComponent("<script>")}`, [XSS.eventName]],
          [`${server.url}/app/events?q=${encodeURIComponent("<img src=x onerror=alert(1)>")}`, ["<img src=x onerror=alert(1)>"]],
          [base, [XSS.eventName, XSS.description.split("\n")[0]!, XSS.location, XSS.city, XSS.tag, XSS.column, XSS.question]],
          [`${base}/guests`, [guestName, XSS.email]],
          [`${base}/guests?q=${encodeURIComponent("<script>")}`, [guestName]],
          [`${base}/guests/${personId}`, [guestName, XSS.email, XSS.note, XSS.column, XSS.columnValue, XSS.tag, `API key “${XSS.keyName}”`]],
          [`${base}/guests/add?contact=${encodeURIComponent("<script>")}`, [guestName, XSS.email]],
          [`${base}/checkin`, [guestName, XSS.email]],
          [`${base}/checkin?q=${encodeURIComponent("<img src=x onerror=alert(1)>")}`, ["<img src=x onerror=alert(1)>"]],
          [`${server.url}/app/team/members`, [memberName]],
          [`${server.url}/app/team/api-keys`, [XSS.keyName]],
          [`${server.url}/app/account`, [memberName]]
        ]
        for (const [url, shown] of pages) {
          const response = await page.goto(url)
          expect(response!.status(), url).toBe(200)
          const text = await page.locator("body").innerText()
          for (const s of shown) expect(text, `${url} shows ${s} as text`).toContain(s)
          await expectInert(page, url)
        }
        // the edit form holds the values as typed
        await page.goto(`${base}/edit`)
        expect(await page.getByRole("textbox", { name: "Name", exact: true }).inputValue()).toBe(XSS.eventName)
        expect(await page.getByLabel("Description", { exact: true }).inputValue()).toBe(XSS.description)
        expect(await page.getByLabel("City", { exact: true }).inputValue()).toBe(XSS.city)
        expect(await page.getByLabel("Columns", { exact: true }).inputValue()).toBe(XSS.column)
        await expectInert(page, "edit form")

        // typed into the pages themselves: shown back as text in flash messages and forms
        await page.getByLabel("Website", { exact: true }).fill("javascript:alert(1)")
        await follow(page, page.getByRole("button", { name: "Save changes" }))
        expect(await page.getByRole("alert").first().innerText()).toContain("Website must be a full web address")
        expect((await rest("GET", `/event/${event.eventId}`)).locationWebsite).toBeNull()
        expectRefusedLoads(watched, 400)
        await page.goto(`${base}/guests/add`)
        await page.getByLabel("Email").fill(`typed.${org.slug}@example.com`)
        await page.getByLabel("First name").fill(XSS.firstName)
        await page.getByLabel("Last name").fill(XSS.memberLast)
        await follow(page, page.getByRole("button", { name: "Add guest", exact: true }))
        expect(await page.locator("main .flash").innerText()).toBe(`${XSS.firstName} ${XSS.memberLast} added to the guest list.`)
        await expectInert(page, "flash")
        await page.goto(`${server.url}/app/team/api-keys`)
        await page.getByLabel("Name").fill(XSS.column)
        await follow(page, page.getByRole("button", { name: "Create API key" }))
        expect(await page.locator(".secret h2").innerText()).toBe(`Your new key “${XSS.column}”`)
        await expectInert(page, "new key")
        expect(watched.dialogs).toEqual([])
        expectQuiet(watched, "xss")
        await context.close()
      })
    }), 60_000)

  it.scoped("every page carries the security headers: CSP without inline or eval scripts and no framing, nosniff, same-origin referrers", () =>
    Effect.gen(function*() {
      const { admin, eventId, personId, server } = yield* withEvent("headers")
      const client = yield* signIn(server.url, admin)
      const base = `/app/events/${eventId}`
      const paths = [
        "/app/events",
        "/app/events?when=past",
        "/app/events/new",
        base,
        `${base}/edit`,
        `${base}/guests`,
        `${base}/guests/add`,
        `${base}/guests/add?contact=gus`,
        `${base}/guests/${personId}`,
        `${base}/checkin`,
        "/app/team/members",
        "/app/team/api-keys",
        "/app/team/webhooks",
        "/app/account",
        "/app/invitations/cvi_unknown",
        "/app/no-such-page",
        `/app/events/00000000-0000-0000-0000-000000000000`
      ]
      for (const path of paths) {
        const reply = yield* client.get(path)
        expect([200, 404], path).toContain(reply.status)
        expectFetchedPageHeaders(reply.headers, path)
      }
      // answers to forms: a refused form, a confirmation step, a redirect, a 403
      const posted = [
        yield* client.post("/app/events", [["name", ""], ["primaryDate", ""], ["timezone", "UTC"]]),
        yield* client.post(`${base}/guests/${personId}/remove`),
        yield* client.post(`${base}/guests/${personId}/rsvp`, [["rsvpStatus", "Maybe"]]),
        yield* client.post(`${base}/guests/${personId}/rsvp`, [["rsvpStatus", "Maybe"]], { csrf: "wrong" })
      ]
      expect(posted.map((r) => r.status)).toEqual([400, 200, 303, 403])
      for (const reply of posted) expectFetchedPageHeaders(reply.headers, `POST → ${reply.status}`)
      // signed out: the sign-in page, the redirect to it, a rate-limit-free visitor's 404
      const visitor = dashboardClient(server.url)
      for (const path of ["/app/login", "/app/events", "/"]) expectFetchedPageHeaders((yield* visitor.get(path)).headers, `visitor ${path}`)
      // the assets are never sniffed into something else
      const css = /href="(\/app\/assets\/[^"]+\.css)"/.exec((yield* visitor.get("/app/login")).html)![1]!
      expect((yield* visitor.get(css)).headers.get("x-content-type-options")).toBe("nosniff")
      // and in the browser, the page cannot be framed by another site
      const chromium = yield* browser
      yield* Effect.promise(async () => {
        const context = await chromium.newContext()
        const page = await context.newPage()
        const response = await page.goto(`${server.url}/app/login`)
        expectPageHeaders(await response!.allHeaders(), "sign-in page in Chromium")
        await page.setContent(`<iframe src="${server.url}/app/login"></iframe>`)
        await page.waitForTimeout(300)
        const framed = page.frames().find((f) => f !== page.mainFrame())
        expect(await framed?.evaluate(() => document.body?.innerText ?? "").catch(() => "") ?? "").not.toContain("Use the email and password")
        await context.close()
      })
    }), 60_000)

  it.scoped("another organization's events, guests, members, invitations and API keys are unknown: the 404 page, and nothing changes", () =>
    Effect.gen(function*() {
      const mine = yield* withEvent("mine")
      const theirs = yield* withEvent("theirs")
      const { server } = mine
      const theirMember = yield* addMember(theirs.org, "Viewer")
      const theirKey = yield* Effect.promise(() => theirs.rest("POST", "/api-token", { name: "their key" }))
      yield* Effect.promise(() => theirs.rest("POST", "/webhook", { webhook: "https://theirs.example/hook", type: "GuestList" }))
      // their Super Admin invites someone who exists already: an invitation of theirs
      const theirOwner = yield* signIn(server.url, theirs.admin)
      expect((yield* theirOwner.post("/app/team/members", { email: mine.admin.email, password: "ignored here", role: "Viewer" })).status).toBe(200)
      const theirRegistration = /\/app\/team\/webhooks\/([^/"]+)\/secret/.exec((yield* theirOwner.get("/app/team/webhooks")).html)![1]!
      const chromium = yield* browser
      yield* Effect.promise(async () => {
        const snapshot = async () => ({
          event: await theirs.rest("GET", `/event/${theirs.eventId}`),
          guests: await theirs.rest("GET", `/event/${theirs.eventId}/guestlist`),
          members: await theirs.rest("GET", "/member"),
          webhooks: await theirs.rest("GET", "/webhook/deliveries"),
          tokens: ((await theirs.rest("GET", "/api-token")).tokens as Array<Json>).map(({ lastUsedAt: _, ...t }) => t)
        })
        const before = await snapshot()
        const invitationId = (before.members.members as Array<Json>).find((m) => m.status === "invited")!.invitationId as string
        const { context, page, watched } = await signedInContext(chromium, server.url, mine.admin)
        const theirEvent = `/app/events/${theirs.eventId}`
        for (const path of [
          theirEvent,
          `${theirEvent}/edit`,
          `${theirEvent}/guests`,
          `${theirEvent}/guests/add`,
          `${theirEvent}/guests/${theirs.personId}`,
          `${theirEvent}/checkin`,
          // their guest on my event
          `/app/events/${mine.eventId}/guests/${theirs.personId}`
        ]) {
          const response = await page.goto(server.url + path)
          expect(response!.status(), path).toBe(404)
          expect(await h1(page)).toBe("Not found")
          expect(await page.locator("main").innerText()).not.toContain("theirs")
        }
        await page.goto(`${server.url}/app/events`)
        const csrf = await pageCsrf(page)
        const posts: Array<[string, Array<[string, string]>]> = [
          [`${theirEvent}/edit`, [["name", "Mine now"], ["primaryDate", "2031-01-01T10:00"], ["timezone", "UTC"]]],
          [`${theirEvent}/guests/bulk`, [["action", "rsvp:Declined"], ["personId", theirs.personId]]],
          [`${theirEvent}/guests/add`, [["kind", "new"], ["email", "intruder@example.com"], ["firstName", "In"], ["lastName", "Truder"]]],
          [`${theirEvent}/guests/${theirs.personId}/rsvp`, [["rsvpStatus", "Declined"]]],
          [`${theirEvent}/checkin/${theirs.personId}`, []],
          [`/app/team/members/${theirMember.userId}/role`, [["role", "Super Admin"]]],
          [`/app/team/members/${theirMember.userId}/remove`, [["confirm", "yes"]]],
          [`/app/team/invitations/${invitationId}/withdraw`, [["confirm", "yes"]]],
          [`/app/team/api-keys/${theirKey.tokenId}/revoke`, [["confirm", "yes"]]],
          [`/app/team/webhooks/${theirRegistration}/secret`, []],
          [`/app/team/webhooks/${theirRegistration}/delete`, [["confirm", "yes"]]]
        ]
        for (const [path, fields] of posts) expect(await postFromPage(page, path, [["_csrf", csrf], ...fields]), path).toBe(404)
        expectRefusedLoads(watched, 404)
        expect(await snapshot()).toEqual(before)
        expectQuiet(watched, "tenancy")
        await context.close()
      })
    }), 60_000)
})

layer(liveServer({ SESSION_IDLE_TIMEOUT: "2 seconds" }), { excludeTestServices: true })("an idle session in Chromium", (it) => {
  it.scoped("ends after SESSION_IDLE_TIMEOUT: the next page is the sign-in page, and signing in leads back", () =>
    Effect.gen(function*() {
      const { admin, eventId, server } = yield* withEvent("idle")
      const chromium = yield* browser
      yield* Effect.promise(async () => {
        const { context, page, watched } = await signedInContext(chromium, server.url, admin)
        await page.goto(`${server.url}/app/events/${eventId}`)
        expect(await h1(page)).toBe("idle party")
        await page.waitForTimeout(2_500)
        await page.getByRole("link", { name: "Guest list", exact: true }).click()
        await page.waitForURL(/\/app\/login/)
        const url = new URL(page.url())
        expect(url.searchParams.get("expired")).toBe("1")
        expect(url.searchParams.get("next")).toBe(`/app/events/${eventId}/guests`)
        expect(await page.getByRole("status").innerText()).toBe("Your session ended. Please sign in again.")
        expect(await sessionCookie(context)).toBeUndefined()
        await page.getByLabel("Email").fill(admin.email)
        await page.getByLabel("Password").fill(admin.password)
        await follow(page, page.getByRole("button", { name: "Sign in" }))
        expect(new URL(page.url()).pathname).toBe(`/app/events/${eventId}/guests`)
        expect(await h1(page)).toBe("Guest list")
        expectQuiet(watched, "idle")
        await context.close()
      })
    }), 30_000)
})
