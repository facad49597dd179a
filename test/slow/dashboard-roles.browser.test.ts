/**
 * Roles in Chromium (docs/integrators.md#roles, docs/integrators.md#the-dashboard): each role sees only the controls it may use, on every page;
 * a forged form post (from the member's own page, with its session, CSRF token and Origin) for
 * anything above the role gets 403 and changes nothing the API can see. A Viewer writes nothing; a
 * Team Member manages guests (and checks them in) but not events or team settings; an Admin manages
 * events and API keys and reads the members; a Super Admin manages members through the forms.
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import type { Page } from "playwright-core"
import type { Role } from "../../src/Domain/Role.js"
import { browser } from "../support/Browser.js"
import {
  addMember,
  expectQuiet,
  expectRefusedLoads,
  follow,
  type MemberAccount,
  newOrganization,
  type Organization,
  pageCsrf,
  postFromPage,
  signedInContext,
  signIn,
  textOf
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

/** Form posts every signed-in member may make: the organization switcher, signing out, their own password. */
const EVERYONE_POSTS = ["/app/organization", "/app/logout", "/app/account/sign-out", "/app/account/password"]

/** The write controls a page offers, by accessible name, and where its POST forms go. */
const controlsOf = async (page: Page) => {
  const named = async (role: "link" | "button" | "checkbox" | "combobox", name: RegExp) =>
    (await page.getByRole(role, { name }).allInnerTexts()).length
  return {
    posts: (await page.locator("form[method=post]").evaluateAll((forms) => forms.map((f) => f.getAttribute("action") ?? "")))
      .filter((path) => !EVERYONE_POSTS.includes(path)),
    newEvent: await named("link", /^New event$/),
    editEvent: await named("link", /^Edit event$/),
    addGuests: await named("link", /^Add guests$/),
    checkIn: await named("button", /^Check in/),
    undo: await named("button", /^Undo/),
    bulk: await named("combobox", /^With the selected guests$/),
    apply: await named("button", /^Apply$/),
    select: await named("checkbox", /^Select /),
    rsvp: await named("button", /^Save (RSVP|attendance)$/),
    inviteLink: await named("button", /^Create invite link$/),
    remove: await named("button", /^Remove/),
    teamSettings: await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Team settings" }).count(),
    memberForms: await named("button", /^(Add member|Save the role of|Withdraw)/),
    keyForms: await named("button", /^(Create API key|Revoke)/)
  }
}

const NONE = {
  posts: [],
  newEvent: 0,
  editEvent: 0,
  addGuests: 0,
  checkIn: 0,
  undo: 0,
  bulk: 0,
  apply: 0,
  select: 0,
  rsvp: 0,
  inviteLink: 0,
  remove: 0,
  teamSettings: 0,
  memberForms: 0,
  keyForms: 0
}

/** An organization with a member of every role and an event with guests, one checked in, one with an invite link. */
const setUp = Effect.gen(function*() {
  const server = yield* TestServer
  const org = yield* newOrganization(server, "roles")
  const members = {} as Record<Role, MemberAccount>
  for (const role of ["Super Admin", "Admin", "Team Member", "Viewer"] as const) members[role] = yield* addMember(org, role)
  const rest = restOf(server.url, org)
  const data = yield* Effect.promise(async () => {
    const event = await rest("POST", "/event", {
      name: "Members' Evening",
      primaryDate: "2031-03-01T18:00:00Z",
      primarySlug: `members-evening-${org.slug}`,
      customColumns: ["Table"]
    })
    const { guests } = await rest("POST", `/event/${event.eventId}/guestlist`, {
      guests: [
        { firstName: "Ada", lastName: "Lovelace", email: `ada.${org.slug}@example.com` },
        { firstName: "Bob", lastName: "Builder", email: `bob.${org.slug}@example.com` },
        { firstName: "Cy", lastName: "Checked", email: `cy.${org.slug}@example.com` }
      ]
    })
    const [ada, bob, cy] = guests as Array<Json>
    await rest("PUT", `/event/${event.eventId}/guestlist`, {
      guests: [
        { personId: ada!.personId, rsvpStatus: "Accepted", customColumns: { Table: "7" } },
        { personId: cy!.personId, rsvpStatus: "Accepted", attendanceStatus: "Attended" }
      ]
    })
    await rest("GET", `/event/${event.eventId}/guestlist/search?personIds=${ada!.personId}&generateRsvpLinks=true`)
    const key = await rest("POST", "/api-token", { name: "CRM sync" })
    return { eventId: event.eventId as string, ada: ada!.personId as string, bob: bob!.personId as string, cy: cy!.personId as string, tokenId: key.tokenId as string }
  })
  /** What the API sees of everything a forged post could touch. */
  const snapshot = async () => ({
    events: (await rest("GET", "/event?showOrganizationEvents=true&includePastEvents=true")).events,
    guests: (await rest("GET", `/event/${data.eventId}/guestlist`)).guests,
    members: (await rest("GET", "/member")).members,
    tokens: ((await rest("GET", "/api-token")).tokens as Array<Json>).map(({ lastUsedAt: _, ...t }) => t),
    deliveries: (await rest("GET", "/webhook/deliveries")).total
  })
  const state = () => Effect.promise(snapshot)
  return { server, org, members, rest, state, snapshot, ...data }
})

layer(liveServer(), { excludeTestServices: true })("roles in Chromium", (it) => {
  it.scoped("a Viewer sees no write control on any page, and forged posts get 403 and change nothing", () =>
    Effect.gen(function*() {
      const { eventId, ada, bob, cy, tokenId, members, server, state } = yield* setUp
      const chromium = yield* browser
      const before = yield* state()
      yield* Effect.promise(async () => {
        const { context, page, watched } = await signedInContext(chromium, server.url, members.Viewer, { viewport: { width: 1280, height: 900 } })
        const base = `/app/events/${eventId}`
        for (const path of ["/app/events", "/app/events?when=past", base, `${base}/guests`, `${base}/guests?status=Accepted`, `${base}/guests/${ada}`, `${base}/checkin`, `${base}/checkin?q=cy`, "/app/account"]) {
          const response = await page.goto(server.url + path)
          expect(response!.status(), path).toBe(200)
          expect({ path, ...(await controlsOf(page)) }).toEqual({ path, ...NONE })
        }
        // what the Viewer reads is all there
        await page.goto(`${server.url}${base}/guests/${ada}`)
        const detail = await page.locator("main").innerText()
        expect(detail).toContain("Table")
        await page.goto(`${server.url}${base}/guests/${bob}`)
        expect(await page.locator("#invite").innerText()).toContain("Bob Builder has no invite link yet. A team member can create one.")
        await page.goto(`${server.url}${base}/guests/${ada}`)
        expect(await page.getByLabel("Personal RSVP link of Ada Lovelace").inputValue()).toMatch(/\/rsvp\//)
        await page.goto(`${server.url}${base}/checkin`)
        expect(await page.locator("#door-results").innerText()).toMatch(/Cy Checked[\s\S]*Checked in/)

        // the pages of writes are not theirs
        for (const path of ["/app/events/new", `${base}/edit`, `${base}/guests/add`, "/app/team/members", "/app/team/api-keys", "/app/team/webhooks"]) {
          const response = await page.goto(server.url + path)
          expect(response!.status(), path).toBe(403)
          expect(await page.getByRole("heading", { level: 1 }).innerText()).toBe("Not allowed")
        }
        expectRefusedLoads(watched, 403)

        // forged posts from the Viewer's own page: the session's CSRF token, the browser's Origin
        await page.goto(`${server.url}${base}/guests`)
        const csrf = await pageCsrf(page)
        const forged: Array<[string, Array<[string, string]>]> = [
          ["/app/events", [["name", "Forged"], ["primaryDate", "2031-01-01T10:00"], ["timezone", "UTC"]]],
          [`${base}/edit`, [["name", "Forged"], ["primaryDate", "2031-01-01T10:00"], ["timezone", "UTC"]]],
          [`${base}/guests/add`, [["kind", "new"], ["email", "forged@example.com"], ["firstName", "For"], ["lastName", "Ged"]]],
          [`${base}/guests/bulk`, [["action", "rsvp:Declined"], ["personId", ada], ["personId", bob]]],
          [`${base}/guests/bulk`, [["action", "remove"], ["personId", ada], ["confirm", "yes"]]],
          [`${base}/guests/${bob}/rsvp`, [["rsvpStatus", "Declined"]]],
          [`${base}/guests/${bob}/attendance`, [["attendanceStatus", "Attended"]]],
          [`${base}/guests/${bob}/invite-link`, []],
          [`${base}/guests/${bob}/remove`, [["confirm", "yes"]]],
          [`${base}/checkin/${bob}`, []],
          [`${base}/checkin/${cy}/undo`, []],
          ["/app/team/members", [["email", "forged@roles.example"], ["password", "a long password"], ["role", "Super Admin"]]],
          [`/app/team/members/${members.Viewer.userId}/role`, [["role", "Super Admin"]]],
          [`/app/team/members/${members.Admin.userId}/remove`, [["confirm", "yes"]]],
          ["/app/team/api-keys", [["name", "Forged key"]]],
          [`/app/team/api-keys/${tokenId}/revoke`, [["confirm", "yes"]]],
          ["/app/team/webhooks", [["webhook", "https://forged.example/hook"], ["type", "EventPerson"]]]
        ]
        for (const [path, fields] of forged) {
          expect(await postFromPage(page, path, [["_csrf", csrf], ...fields]), path).toBe(403)
        }
        expectRefusedLoads(watched, 403)
        expectQuiet(watched, "viewer")
        await context.close()
      })
      expect(yield* state()).toEqual(before)

      // the same over plain HTTP with a valid session, token and Origin
      const client = yield* signIn(server.url, members.Viewer)
      expect((yield* client.post(`/app/events/${eventId}/guests/bulk`, [["action", "rsvp:Declined"], ["personId", ada]])).status).toBe(403)
      expect((yield* client.post("/app/events", [["name", "Forged"], ["primaryDate", "2031-01-01T10:00"], ["timezone", "UTC"]])).status).toBe(403)
      expect(yield* state()).toEqual(before)
    }), 60_000)

  it.scoped("a Team Member manages guests and checks them in, but neither events nor team settings", () =>
    Effect.gen(function*() {
      const { eventId, bob, members, rest, server, snapshot } = yield* setUp
      const chromium = yield* browser
      yield* Effect.promise(async () => {
        const { context, page, watched } = await signedInContext(chromium, server.url, members["Team Member"], { viewport: { width: 1280, height: 900 } })
        const base = `${server.url}/app/events/${eventId}`
        await page.goto(`${server.url}/app/events`)
        let controls = await controlsOf(page)
        expect([controls.newEvent, controls.teamSettings]).toEqual([0, 0])
        await page.goto(base)
        controls = await controlsOf(page)
        expect(controls.editEvent).toBe(0)
        await page.goto(`${base}/guests`)
        controls = await controlsOf(page)
        expect(controls).toMatchObject({ addGuests: 1, bulk: 1, apply: 1, select: 4, checkIn: 2, undo: 1 }) // a box per guest, and "Select all on this page"

        // a guest's check-in from the list, and a new guest
        await follow(page, page.getByRole("button", { name: "Check in Bob Builder" }))
        expect(await page.locator("main .flash").innerText()).toBe("Bob Builder checked in.")
        await page.getByRole("link", { name: "Add guests" }).click()
        await page.getByLabel("Email").fill(`dee.${eventId}@example.com`)
        await page.getByLabel("First name").fill("Dee")
        await page.getByLabel("Last name").fill("Newcomer")
        await follow(page, page.getByRole("button", { name: "Add guest", exact: true }))
        expect(await page.locator("main .flash").innerText()).toBe("Dee Newcomer added to the guest list.")
        const guests = (await rest("GET", `/event/${eventId}/guestlist`)).guests as Array<Json>
        expect(guests.find((g) => g.personId === bob)!.attendanceStatus).toBe("Attended")
        expect(guests.find((g) => g.name === "Dee Newcomer")!.rsvpStatusHistory[0]).toMatchObject({ actorType: "user", actorId: members["Team Member"].userId })

        for (const path of ["/app/events/new", `/app/events/${eventId}/edit`, "/app/team/members", "/app/team/api-keys", "/app/team/webhooks"]) {
          expect((await page.goto(server.url + path))!.status(), path).toBe(403)
        }
        expectRefusedLoads(watched, 403)
        await page.goto(`${base}/guests`)
        const csrf = await pageCsrf(page)
        const before = await snapshot()
        for (const [path, fields] of [
          ["/app/events", [["name", "Forged"], ["primaryDate", "2031-01-01T10:00"], ["timezone", "UTC"]]],
          [`/app/events/${eventId}/edit`, [["name", "Forged"], ["primaryDate", "2031-01-01T10:00"], ["timezone", "UTC"]]],
          ["/app/team/members", [["email", "forged@roles.example"], ["password", "a long password"], ["role", "Viewer"]]],
          ["/app/team/api-keys", [["name", "Forged key"]]],
          ["/app/team/webhooks", [["webhook", "https://forged.example/hook"], ["type", "EventPerson"]]]
        ] as Array<[string, Array<[string, string]>]>) {
          expect(await postFromPage(page, path, [["_csrf", csrf], ...fields]), path).toBe(403)
        }
        expectRefusedLoads(watched, 403)
        expect(await snapshot()).toEqual(before)
        expectQuiet(watched, "team member")
        await context.close()
      })
    }), 60_000)

  it.scoped("an Admin manages events and API keys and reads the members; a Super Admin adds a member and changes a role in the page", () =>
    Effect.gen(function*() {
      const { eventId, members, rest, server, org } = yield* setUp
      const chromium = yield* browser
      yield* Effect.promise(async () => {
        const admin = await signedInContext(chromium, server.url, members.Admin, { viewport: { width: 1280, height: 900 } })
        let page = admin.page
        await page.goto(`${server.url}/app/events`)
        expect(await controlsOf(page)).toMatchObject({ newEvent: 1, teamSettings: 1 })
        await page.goto(`${server.url}/app/events/${eventId}`)
        expect((await controlsOf(page)).editEvent).toBe(1)
        await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Team settings" }).click()
        expect(await page.getByRole("heading", { level: 1 }).innerText()).toBe("Members")
        expect(await page.locator("main").innerText()).toContain("Only a Super Admin can add, change or remove members.")
        expect((await controlsOf(page)).memberForms).toBe(0)
        expect(await page.getByRole("combobox").count()).toBe(1) // the organization switcher only
        await page.getByRole("link", { name: "Linked Services › API Keys" }).click()
        expect((await controlsOf(page)).keyForms).toBe(3) // create, and revoke each of the two keys
        const csrf = await pageCsrf(page)
        const before = (await rest("GET", "/member")).members
        expect(await postFromPage(page, "/app/team/members", [["_csrf", csrf], ["email", "forged@roles.example"], ["password", "a long password"], ["role", "Super Admin"]])).toBe(403)
        expect(await postFromPage(page, `/app/team/members/${members.Admin.userId}/role`, [["_csrf", csrf], ["role", "Super Admin"]])).toBe(403)
        expect((await rest("GET", "/member")).members).toEqual(before)
        expectRefusedLoads(admin.watched, 403)
        expectQuiet(admin.watched, "admin")
        await admin.context.close()

        // the Super Admin's forms: add a member, change a role
        const owner = await signedInContext(chromium, server.url, members["Super Admin"], { viewport: { width: 1280, height: 900 } })
        page = owner.page
        await page.goto(`${server.url}/app/team/members`)
        const add = page.getByRole("region", { name: "Add a member" })
        await add.getByLabel("Email").fill(`grace@${org.slug}.example`)
        await add.getByLabel("Role").selectOption("Viewer")
        await add.getByLabel("First name").fill("Grace")
        await add.getByLabel("Last name").fill("Hopper")
        await add.getByLabel("Initial password").fill("grace's initial password")
        await follow(page, add.getByRole("button", { name: "Add member" }))
        expect(await page.locator("main .flash").innerText()).toContain("Grace Hopper was added as Viewer.")
        const grace = ((await rest("GET", "/member")).members as Array<Json>).find((m) => m.email === `grace@${org.slug}.example`)!
        expect(grace).toMatchObject({ role: "Viewer", firstName: "Grace", lastName: "Hopper" })
        await page.getByRole("combobox", { name: "Role of Grace Hopper" }).selectOption("Team Member")
        await follow(page, page.getByRole("button", { name: "Save the role of Grace Hopper" }))
        expect(await page.locator("main .flash").innerText()).toContain("Grace Hopper is now Team Member")
        expect(((await rest("GET", "/member")).members as Array<Json>).find((m) => m.userId === grace.userId)).toMatchObject({ role: "Team Member" })
        // removing asks first (a script confirm here), then the member is gone
        await follow(page, page.getByRole("button", { name: "Remove Grace Hopper" }))
        expect(owner.watched.dialogs.at(-1)).toMatchObject({ type: "confirm" })
        expect(((await rest("GET", "/member")).members as Array<Json>).some((m) => m.userId === grace.userId)).toBe(false)
        expect(textOf(await page.content())).toContain("Grace Hopper was removed")
        expectQuiet(owner.watched, "super admin")
        await owner.context.close()
      })
    }), 60_000)
})
