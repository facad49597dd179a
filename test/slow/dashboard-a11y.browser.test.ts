/**
 * Accessibility and looks of every dashboard page in Chromium (docs/integrators.md#the-dashboard): axe-core's WCAG 2.0,
 * 2.1 and 2.2 A/AA rules find no serious or critical violation, each page has one `h1` and the
 * security headers, at 1280 px and on a 360 px touch screen, with data and in the empty states;
 * a full-page screenshot of each is saved as `test-artifacts/dashboard/<page>-<width>.png`, and
 * what axe found at every impact in `axe-<width>.json` (axe and screenshots on SQLite only, the
 * markup being the same on both engines: `MARKUP_AUDITS`). The main flows work by keyboard alone.
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import type { Browser, Page } from "playwright-core"
import { browser } from "../support/Browser.js"
import {
  addMember,
  Auditor,
  expectQuiet,
  follow,
  MARKUP_AUDITS,
  newOrganization,
  type Organization,
  signIn,
  watch,
  writeFindings
} from "../support/Dashboard.js"
import { TestServer, liveServer } from "../support/TestServer.js"

type Json = Record<string, any>

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

const FIRST = ["Ada", "Grace", "Katherine", "Dorothy", "Mary", "Hedy", "Radia", "Frances", "Barbara", "Margaret", "Annie", "Joan"]
const LAST = ["Lovelace", "Hopper", "Johnson", "Vaughan", "Jackson", "Lamarr", "Perlman", "Allen", "Liskov", "Hamilton", "Easley", "Clarke"]

/** An organization as an organizer's looks after a while: members, events, guests in every state, a pending invitation. */
const populated = Effect.gen(function*() {
  const server = yield* TestServer
  const org = yield* newOrganization(server, "a11y")
  const owner = yield* addMember(org, "Super Admin", { firstName: "Sam", lastName: "Super" })
  const admin = yield* addMember(org, "Admin", { firstName: "Alex", lastName: "Admin" })
  const viewer = yield* addMember(org, "Viewer", { firstName: "Val", lastName: "Viewer" })
  const elsewhere = yield* newOrganization(server, "elsewhere")
  const invitee = yield* addMember(elsewhere, "Admin", { firstName: "Ivy", lastName: "Invitee" })
  const rest = restOf(server.url, org)
  const data = yield* Effect.promise(async () => {
    // a receiver that is not there: the delivery log fills with failed attempts
    await rest("POST", "/webhook", { webhook: "http://127.0.0.1:9/convene", type: "EventPerson" })
    const event = await rest("POST", "/event", {
      name: "Harbor Lights Gala",
      primaryDate: "2031-09-14T16:30:00Z",
      endDate: "2031-09-14T22:00:00Z",
      timezone: "Europe/Berlin",
      registrationClosesAt: "2031-09-10T21:59:00Z",
      registrationApproval: true,
      reminders: ["P1D", "PT2H"],
      replyTo: "gala@harbor.example.org",
      primarySlug: `harbor-lights-${org.slug}`,
      isPublic: true,
      eventTags: ["gala", "fundraiser"],
      locationName: "Harbor Hall",
      locationAddress: "Kai 1",
      locationCity: "Hamburg",
      locationPostalCode: "20457",
      locationCountry: "Germany",
      locationWebsite: "https://harbor.example.org/",
      virtualLocations: [{ url: "https://meet.example.org/gala", sourceType: "meet", password: "lights" }],
      rsvpDescription: "Lanterns on the water.\nMusic until late.",
      rsvpQuestions: [{ title: "Which boat do you arrive on?", description: "We meet you at the pier" }],
      linkPreviewDescription: "A night of lights",
      capacityEnabled: true,
      capacity: 100,
      ticketingEnabled: true,
      customColumns: ["Table", "Badge"]
    })
    await rest("POST", "/event", { name: "Spring Picnic", primaryDate: "2024-04-20T10:00:00Z", locationName: "City Park" })
    const empty = await rest("POST", "/event", { name: "Quiet Workshop", primaryDate: "2031-10-01T09:00:00Z" })
    const { guests } = await rest("POST", `/event/${event.eventId}/guestlist`, {
      guests: FIRST.map((first, i) => ({ firstName: first, lastName: LAST[i], email: `${first.toLowerCase()}.${org.slug}@example.com` }))
    })
    const ids = (guests as Array<Json>).map((g) => g.personId as string)
    const statuses = ["Accepted", "Accepted", "Accepted", "Declined", "Maybe", "Waitlisted", "Accepted", "Accepted"]
    await rest("PUT", `/event/${event.eventId}/guestlist`, {
      guests: statuses.map((rsvpStatus, i) => ({
        personId: ids[i],
        rsvpStatus,
        ...(i < 2 ? { attendanceStatus: "Attended" } : {}),
        ...(i === 0 ? { rsvpNote: "Arriving by boat", dietaryRestrictions: ["Vegan"], customColumns: { Table: "7", Badge: "VIP" } } : {})
      }))
    })
    await rest("PUT", `/event/${event.eventId}/guestlist`, { guests: [{ personId: ids[3], attendanceStatus: "No Show" }] })
    await rest("GET", `/event/${event.eventId}/guestlist/search?personIds=${ids[0]}&generateRsvpLinks=true`)
    await rest("POST", "/api-token", { name: "CRM sync" })
    return { eventId: event.eventId as string, emptyEventId: empty.eventId as string, ada: ids[0]!, dorothy: ids[3]! }
  })
  // the owner invites a user of another organization: a pending invitation, and its link
  const ownerClient = yield* signIn(server.url, owner)
  const invited = yield* ownerClient.post("/app/team/members", { email: invitee.email, password: "ignored for an existing user", role: "Viewer" })
  expect(invited.status).toBe(200)
  const invitation = /\/app\/invitations\/cvi_[A-Za-z0-9_-]+/.exec(invited.html)![0]
  // an organization with nothing yet, whose only key was revoked
  const bare = yield* newOrganization(server, "empty")
  const newcomer = yield* addMember(bare, "Super Admin", { firstName: "Nina", lastName: "Newcomer" })
  yield* Effect.promise(async () => {
    const bareRest = restOf(server.url, bare)
    const { tokens } = await bareRest("GET", "/api-token")
    await bareRest("DELETE", `/api-token/${tokens[0].tokenId}`)
  })
  return { server, org, accounts: { owner, admin, viewer, invitee, newcomer }, invitee, invitation, ...data }
})

/** The organization above, made once for every test of this file (they share the server). */
const populatedOnce = Effect.runSync(Effect.cached(populated))

/** Every page of the dashboard at one width: signed out, as each role that has pages of its own, with data and empty. */
const auditEveryPage = (chromium: Browser, width: number) =>
  Effect.gen(function*() {
    const { accounts, ada, dorothy, emptyEventId, eventId, invitation, invitee, server } = yield* populatedOnce
    // sessions of this width's own (both widths run at once: flash messages stay with their session)
    const sessions = {
      owner: (yield* signIn(server.url, accounts.owner)).session()!,
      admin: (yield* signIn(server.url, accounts.admin)).session()!,
      viewer: (yield* signIn(server.url, accounts.viewer)).session()!,
      invitee: (yield* signIn(server.url, accounts.invitee)).session()!,
      newcomer: (yield* signIn(server.url, accounts.newcomer)).session()!
    }
    // and guests and names of its own where the pages change something
    const arriving = width < 600 ? "Radia Perlman" : "Katherine Johnson"
    yield* Effect.promise(async () => {
      const auditor = await Auditor.open(chromium, width, { mobile: width < 600 })
      const page = auditor.page
      const as = (session: string | undefined) => auditor.useSession(server.url, session)
      const url = (path: string) => server.url + path
      const base = `/app/events/${eventId}`
      try {
        // signed out
        await as(undefined)
        await auditor.visit(url("/app/login"), "sign-in")
        await page.getByLabel("Email").fill("nobody@example.com")
        await page.getByLabel("Password").fill("not the password")
        await follow(page, page.getByRole("button", { name: "Sign in" }))
        await auditor.audit("sign-in-error", { status: 401 })

        // the Super Admin, with data
        await as(sessions.owner)
        await auditor.visit(url("/app/events"), "events")
        await auditor.visit(url("/app/events?when=past"), "events-past")
        await auditor.visit(url("/app/events?q=nothing-like-this"), "events-no-match")
        await auditor.visit(url("/app/events/new"), "event-new")
        await follow(page, page.getByRole("button", { name: "Create event" }))
        await auditor.audit("event-new-errors", { status: 400 })
        await auditor.visit(url(base), "event")
        await auditor.visit(url(`/app/events/${emptyEventId}`), "event-no-guests")
        await auditor.visit(url(`${base}/edit`), "event-edit")
        await auditor.visit(url(`${base}/guests`), "guests")
        await auditor.visit(url(`${base}/guests?status=Maybe&q=zzz`), "guests-no-match")
        await auditor.visit(url(`/app/events/${emptyEventId}/guests`), "guests-empty")
        await auditor.visit(url(`${base}/guests/add`), "guests-add")
        await auditor.visit(url(`${base}/guests/add?contact=a`), "guests-add-results")
        // what the server answers when the browser's own checks are skipped (older browsers, scripts off)
        await page.locator("form:has(input[name=kind][value=new])").evaluate((form) => ((form as HTMLFormElement).noValidate = true))
        await page.getByLabel("Email").fill("not an email")
        await follow(page, page.getByRole("button", { name: "Add guest", exact: true }))
        await auditor.audit("guests-add-errors", { status: 400 })
        await auditor.visit(url(`${base}/guests/${ada}`), "guest")
        await auditor.visit(url(`${base}/guests/${dorothy}`), "guest-no-link")
        // the confirmation step a destructive form leads to without scripts (submitted without the script's question)
        await Promise.all([page.waitForEvent("load"), page.locator("form[data-confirm]").evaluate((form) => (form as HTMLFormElement).submit())])
        await auditor.audit("confirm-remove-guest")
        await auditor.visit(url(`${base}/checkin`), "checkin")
        // door.js answers without a page load; a guest who did not say yes is confirmed first
        await page.locator("#door[data-loaded]").waitFor()
        await page.getByRole("button", { name: `Check in ${arriving}` }).click()
        await page.locator(".door-result.done, .door-result.confirm").waitFor()
        if (await page.locator(".door-result.confirm").count() > 0) {
          await auditor.audit("checkin-confirm")
          await page.locator(".door-result.confirm button").first().click()
          await page.locator(".door-result.done").waitFor()
        }
        await auditor.audit("checkin-done")
        await page.locator("#door-result").getByRole("button", { name: `Undo check-in of ${arriving}` }).click()
        await page.locator("#door-result").getByText("undone").waitFor()
        await auditor.visit(url(`${base}/checkin?q=nobody`), "checkin-no-match")
        await auditor.visit(url(`/app/events/${emptyEventId}/checkin`), "checkin-empty")
        await auditor.visit(url("/app/team/members"), "members")
        await auditor.visit(url("/app/team/api-keys"), "api-keys")
        await page.getByLabel("Name").fill(`Newsletter ${width}`)
        await follow(page, page.getByRole("button", { name: "Create API key" }))
        await auditor.audit("api-key-created")
        await auditor.visit(url("/app/team/webhooks"), "webhooks")
        await follow(page, page.getByRole("button", { name: /^Show secret of / }))
        await auditor.audit("webhooks-secret")
        await auditor.visit(url("/app/account"), "account")
        await auditor.visit(url("/app/events/00000000-0000-4000-8000-000000000000"), "not-found", { status: 404 })

        // an Admin reads the members; a Viewer meets a page above their role
        await as(sessions.admin)
        await auditor.visit(url("/app/team/members"), "members-admin-view")
        await as(sessions.viewer)
        await auditor.visit(url(base), "event-viewer")
        await auditor.visit(url(`${base}/guests`), "guests-viewer")
        await auditor.visit(url("/app/events/new"), "forbidden", { status: 403 })

        // the invited user, on their invitation link; another link that does not work
        await as(sessions.invitee)
        await auditor.visit(url(invitation), "invitation")
        expect.soft(await page.locator("body").innerText()).toContain(invitee.email)
        await auditor.visit(url("/app/invitations/cvi_unknown"), "invitation-missing", { status: 404 })

        // an organization with nothing yet
        await as(sessions.newcomer)
        await auditor.visit(url("/app/events"), "events-empty")
        await auditor.visit(url("/app/team/api-keys"), "api-keys-empty")
        await auditor.visit(url("/app/team/members"), "members-alone")
        await auditor.visit(url("/app/team/webhooks"), "webhooks-empty")
      } finally {
        writeFindings(`axe-${width}.json`, [auditor])
        await auditor.close()
      }
      // every serious or critical violation failed its page above; the rest is reported, not hidden
      console.info(`${MARKUP_AUDITS ? "axe" : "checked (axe on SQLite only)"} at ${width} px: ${auditor.audited} pages; findings:\n${
        auditor.findings.map((f) => `  ${f.page}: ${f.kind} ${f.impact} ${f.rule} ${f.targets.slice(0, 3).join(", ")}`).join("\n")
      }`)
    })
  })

/** The element that has the focus: its tag, name and text, and whether a focus ring shows. */
const focused = (page: Page) =>
  page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null
    const style = el ? getComputedStyle(el) : undefined
    return {
      tag: el?.tagName.toLowerCase(),
      name: el?.getAttribute("name") ?? el?.getAttribute("aria-label") ?? el?.textContent?.trim(),
      ring: style !== undefined && style.outlineStyle !== "none" && style.outlineWidth !== "0px"
    }
  })

/** Presses Tab until `match` has the focus (at most `max` times), as a keyboard user does. */
const tabTo = async (page: Page, match: (f: Awaited<ReturnType<typeof focused>>) => boolean, max = 60) => {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press("Tab")
    const f = await focused(page)
    if (match(f)) return f
  }
  throw new Error("never reached by Tab")
}

layer(liveServer(), { excludeTestServices: true })("every dashboard page in Chromium: accessibility and screenshots", (it) => {
  // both widths at once, each in its own browser context: a failure names its page and width
  it.scoped("every page at 1280 px and at 360 px on a touch screen", () =>
    Effect.flatMap(browser, (chromium) =>
      Effect.all([auditEveryPage(chromium, 1280), auditEveryPage(chromium, 360)], { concurrency: 2, discard: true })), 240_000) // 80 pages, through axe and with screenshots on SQLite

  it.scoped("the main flows by keyboard alone: sign in, the door's search focused, check in after its confirmation, undo, a bulk change", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const org = yield* newOrganization(server, "keys")
      const staff = yield* addMember(org, "Team Member", { firstName: "Kim", lastName: "Keys" })
      const rest = restOf(server.url, org)
      const eventId = yield* Effect.promise(async () => {
        const event = await rest("POST", "/event", { name: "Keyboard Night", primaryDate: "2031-02-02T19:00:00Z" })
        await rest("POST", `/event/${event.eventId}/guestlist`, {
          guests: [
            { firstName: "Ada", lastName: "Lovelace", email: `ada.${org.slug}@example.com` },
            { firstName: "Grace", lastName: "Hopper", email: `grace.${org.slug}@example.com` }
          ]
        })
        return event.eventId as string
      })
      const chromium = yield* browser
      yield* Effect.promise(async () => {
        const context = await chromium.newContext({ viewport: { width: 1280, height: 900 } })
        context.setDefaultTimeout(10_000)
        const page = await context.newPage()
        const watched = watch(page)
        // sign in: Tab to the fields and the button, Enter submits
        await page.goto(`${server.url}/app/login?next=${encodeURIComponent(`/app/events/${eventId}/checkin`)}`)
        expect(await tabTo(page, (f) => f.name === "email")).toMatchObject({ tag: "input", ring: true })
        await page.keyboard.type(staff.email)
        expect(await tabTo(page, (f) => f.name === "password", 1)).toMatchObject({ tag: "input" })
        await page.keyboard.type(staff.password)
        expect(await tabTo(page, (f) => f.name === "Sign in", 1)).toMatchObject({ tag: "button", ring: true })
        await Promise.all([page.waitForURL(/\/checkin$/), page.keyboard.press("Enter")])

        // the door is a page of its own: the search field has the focus; the results narrow as one types
        expect(await page.evaluate(() => document.activeElement?.getAttribute("name"))).toBe("q")
        await page.locator("#door[data-loaded]").waitFor()
        await page.keyboard.type("grace")
        expect(await tabTo(page, (f) => f.name === "Check in Grace Hopper")).toMatchObject({ tag: "button", ring: true })
        await page.keyboard.press("Enter")
        // Grace is Invited: the confirmation names it and takes the focus
        expect(await page.getByRole("status").innerText()).toContain("Grace Hopper answered Invited, not Accepted.")
        expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Check in anyway (Invited)")
        await page.keyboard.press("Enter")
        await page.getByRole("status").getByText("Grace Hopper checked in.").waitFor()
        // the field has the focus again, emptied, for the next guest
        expect(await page.evaluate(() => document.activeElement?.getAttribute("name"))).toBe("q")
        expect(await tabTo(page, (f) => f.name === "Undo check-in of Grace Hopper")).toMatchObject({ tag: "button", ring: true })
        await page.keyboard.press("Space")
        await page.getByRole("status").getByText("Check-in of Grace Hopper undone.").waitFor()

        // the guest list: tick a guest with Space, choose the action with the keyboard, Apply with Enter
        await page.goto(`${server.url}/app/events/${eventId}/guests`)
        expect(await tabTo(page, (f) => f.tag === "input" && f.name === "personId")).toMatchObject({ ring: true })
        await page.keyboard.press("Space")
        expect(await page.getByRole("checkbox", { name: "Select Ada Lovelace" }).isChecked()).toBe(true)
        await page.getByLabel("With the selected guests").focus()
        await page.keyboard.press("ArrowDown")
        await page.keyboard.press("ArrowDown")
        expect(await page.getByLabel("With the selected guests").inputValue()).toBe("rsvp:Accepted")
        expect(await tabTo(page, (f) => f.name === "Apply", 1)).toMatchObject({ tag: "button", ring: true })
        await Promise.all([page.waitForEvent("load"), page.keyboard.press("Enter")])
        expect(await page.locator("main .flash").innerText()).toBe("RSVP status set to Accepted for 1 guest: Ada Lovelace.")
        const guests = (await rest("GET", `/event/${eventId}/guestlist`)).guests as Array<Json>
        expect(guests.map((g) => [g.name, g.rsvpStatus, g.attendanceStatus])).toEqual([["Ada Lovelace", "Accepted", null], ["Grace Hopper", "Invited", null]])
        expectQuiet(watched, "keyboard")
        await context.close()
      })
    }), 60_000)
})
