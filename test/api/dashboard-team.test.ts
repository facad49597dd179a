/**
 * The dashboard's Team settings › Members, invitation links and Account pages (docs/integrators.md#members-and-invitations),
 * over HTTP against a real server: the same rules as the members API (Super Admin writes, Admins
 * read, the last Super Admin stays, an existing user is only invited), and a password change that
 * ends every sign-in of the user.
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { type Account, addMember, type DashboardClient, dashboardClient, signIn, textOf } from "../support/Dashboard.js"
import { queryDatabase } from "../support/Engine.js"
import { expectStatus, login } from "../support/Fixtures.js"
import { TestServer, testServer } from "../support/TestServer.js"

type Server = TestServer["Type"]

let counter = 0
const next = () => `${process.pid}-${++counter}`

/** One person's browser: a session cookie jar, forms posted from the service's own pages. */
const browser = (server: Server) => dashboardClient(server.url)
type Browser = DashboardClient

const signedIn = (server: Server, account: Account) => signIn(server.url, account, { next: "/app/account" })

interface Org {
  readonly id: number
  readonly slug: string
  readonly name: string
  readonly token: string
  readonly owner: Account & { readonly userId: string }
}

/** An organization with an API token and a Super Admin, as the operator makes them. */
const organization = (label: string) =>
  Effect.gen(function*() {
    const server = yield* TestServer
    const slug = `${label}-${next()}`
    const created = yield* server.organization(slug)
    const owner = yield* addMember({ id: created.id, slug, name: slug }, "Super Admin", {
      email: `owner@${slug}.example`,
      password: `owner password of ${slug}`,
      firstName: "Owner",
      lastName: slug
    })
    const { email, password, userId } = owner
    return { id: created.id, slug, name: slug, token: created.token, owner: { email, password, userId } } satisfies Org
  })

/** The organization's members and invitations over the REST API (its Admin API token). */
const membersOf = (server: Server, org: Org) =>
  Effect.map(server.request("GET", "/member", { token: org.token }), (reply) =>
    expectStatus(reply, 200).body.members as Array<Record<string, any>>)

const addThroughPage = (owner: Browser, fields: { email: string; password: string; role: string; firstName?: string; lastName?: string }) =>
  owner.post("/app/team/members", { firstName: "", lastName: "", ...fields })

/** A member added through the form (a new user), with their user id. */
const newMember = (server: Server, org: Org, owner: Browser, role: string, label = "member") =>
  Effect.gen(function*() {
    const account = { email: `${label}-${next()}@${org.slug}.example`, password: `${label} password ${next()}` }
    expect((yield* addThroughPage(owner, { ...account, role, firstName: "Ada", lastName: label })).status).toBe(303)
    const userId = (yield* membersOf(server, org)).find((m) => m["email"] === account.email)!["userId"] as string
    return { ...account, userId }
  })

const passwordHashOf = (server: Server, email: string) =>
  Effect.promise(async () => {
    const [row] = await queryDatabase<{ password_hash: string }>(
      server.databaseEnv,
      "SELECT password_hash FROM users WHERE email_key = ?",
      [email.toLowerCase()]
    )
    return row!.password_hash
  })

const loginStatus = (server: Server, email: string, password: string) =>
  Effect.map(server.request("POST", "/login", { token: null, body: { email, password } }), (reply) => reply.status)

/** The one-time link shown on the page after inviting, as a path of the service. */
const inviteLinkOf = (html: string) => {
  const url = /id="invite-link"[^>]*value="([^"]+)"|value="([^"]+)"[^>]*id="invite-link"/.exec(html)
  const href = url?.[1] ?? url?.[2]
  expect(href, "the invitation link is shown").toBeDefined()
  return new URL(href!).pathname
}

layer(testServer(), { excludeTestServices: true })("dashboard: members", (it) => {
  it.effect("a Super Admin adds a new member through the form: listed over the API, and they can sign in", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const org = yield* organization("add")
      const owner = yield* signedIn(server, org.owner)
      const page = yield* owner.get("/app/team/members")
      expect(page.status).toBe(200)
      expect(textOf(page.html)).toContain("Add a member")

      const account = { email: `Grace-${next()}@add.example`, password: "grace's initial password" }
      const added = yield* addThroughPage(owner, { ...account, role: "Team Member", firstName: "Grace", lastName: "Hopper" })
      expect(added.status).toBe(303)
      expect(added.location).toBe("/app/team/members")
      const after = yield* owner.get("/app/team/members")
      expect(textOf(after.html)).toContain("Grace Hopper was added as Team Member")
      expect(textOf(after.html)).toContain(account.email)

      const listed = (yield* membersOf(server, org)).find((m) => m["email"] === account.email)
      expect(listed).toMatchObject({ firstName: "Grace", lastName: "Hopper", role: "Team Member", status: "active" })
      const grace = yield* signedIn(server, account)
      const home = yield* grace.get("/app/account")
      expect(home.status).toBe(200)
      expect(textOf(home.html)).toContain(`${org.name} · Team Member`)
    }))

  it.effect("bad input re-renders the form with its errors and what was typed (never the password), and adds nobody", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const org = yield* organization("bad")
      const owner = yield* signedIn(server, org.owner)
      const before = yield* membersOf(server, org)
      const reply = yield* addThroughPage(owner, { email: "not an email", password: "short", role: "Emperor", firstName: "Kept" })
      expect(reply.status).toBe(400)
      const text = textOf(reply.html)
      expect(text).toContain("Email must be an email address")
      expect(text).toContain("Initial password must be at least 8 characters")
      expect(text).toContain("Role must be one of Super Admin, Admin, Team Member and Viewer")
      expect(reply.html).toContain("value=\"Kept\"")
      expect(reply.html).not.toContain("value=\"short\"")
      // an existing member of this organization: 409, next to the email
      const again = yield* addThroughPage(owner, { email: org.owner.email.toUpperCase(), password: "whatever it is", role: "Viewer" })
      expect(again.status).toBe(409)
      expect(textOf(again.html)).toContain(`is a member of ${org.name} already`)
      expect(yield* membersOf(server, org)).toEqual(before)
    }))

  it.effect("an existing user is invited: the link is shown once, the typed password is never stored; they accept it on the link's page", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const org = yield* organization("inv")
      const home = yield* organization("home")
      const invitee = home.owner
      const owner = yield* signedIn(server, org.owner)
      const hashBefore = yield* passwordHashOf(server, invitee.email)

      const reply = yield* addThroughPage(owner, { email: invitee.email, password: "typed by another organization", role: "Admin" })
      expect(reply.status).toBe(200)
      const link = inviteLinkOf(reply.html)
      expect(link).toMatch(/^\/app\/invitations\/cvi_[A-Za-z0-9_-]{43}$/)
      const notice = textOf(/class="secret"[\s\S]*?I have sent it/.exec(reply.html)![0])
      expect(notice).toContain(`Send this invitation link to ${invitee.email}`)
      expect(notice).toContain("while signed in to their own account")
      expect(notice).toMatch(/expires on [A-Z][a-z]{2} \d{1,2}, \d{4}/)
      expect(notice.toLowerCase()).not.toContain("password")

      // the typed password was neither stored nor made to work
      expect(yield* passwordHashOf(server, invitee.email)).toBe(hashBefore)
      expect(yield* loginStatus(server, invitee.email, "typed by another organization")).toBe(401)
      expect(yield* loginStatus(server, invitee.email, invitee.password)).toBe(200)
      const pending = (yield* membersOf(server, org)).find((m) => m["email"] === invitee.email)
      expect(pending).toMatchObject({ status: "invited", role: "Admin" })
      expect(textOf((yield* owner.get("/app/team/members")).html)).toContain("Pending invitations (1)")

      // someone else, signed in, gets the one page that says nothing about the invitation
      const stranger = yield* signedIn(server, (yield* organization("stranger")).owner)
      const strange = yield* stranger.get(link)
      expect(strange.status).toBe(404)
      expect(textOf(strange.html)).toContain("This invitation link does not work")
      expect(strange.html).not.toContain(org.name)
      expect((yield* stranger.post(`${link}/accept`)).status).toBe(404)
      const unknown = yield* stranger.get(`/app/invitations/cvi_${"A".repeat(43)}`)
      expect(unknown.status).toBe(404)
      expect(textOf(unknown.html).replace(/cvi_\S+/g, "")).toBe(textOf(strange.html).replace(/cvi_\S+/g, ""))
      // from there, signing out leads back to the link after signing in (and nowhere else a form names)
      const other = yield* signedIn(server, (yield* organization("other")).owner)
      expect((yield* other.post("/app/account/sign-out", { next: "https://evil.example/" })).location).toBe("/app/login?signedOut=1")
      expect((yield* stranger.post("/app/account/sign-out", { next: link })).location)
        .toBe(`/app/login?signedOut=1&next=${encodeURIComponent(link)}`)

      // not signed in: the sign-in page, and back here after it
      const visitor = browser(server)
      const out = yield* visitor.get(link)
      expect(out.status).toBe(303)
      expect(out.location).toBe(`/app/login?next=${encodeURIComponent(link)}`)

      // the invited user, signed in to their own account, sees the offer and accepts it
      const guest = yield* signedIn(server, invitee)
      const offer = yield* guest.get(link)
      expect(offer.status).toBe(200)
      expect(textOf(offer.html)).toContain(`Join ${org.name} as Admin`)
      const accepted = yield* guest.post(`${link}/accept`)
      expect(accepted.status).toBe(303)
      expect(accepted.location).toBe("/app/events")
      const account = yield* guest.get("/app/account")
      expect(textOf(account.html)).toContain(`Welcome to ${org.name}: you joined as Admin`)
      expect(textOf(account.html)).toContain(`${org.name} · Admin Working here now`)
      expect((yield* guest.get("/app/team/members")).status).toBe(200)
      expect((yield* membersOf(server, org)).find((m) => m["email"] === invitee.email)).toMatchObject({ status: "active", role: "Admin" })
      // the link worked once
      expect((yield* guest.get(link)).status).toBe(404)
      expect(yield* passwordHashOf(server, invitee.email)).toBe(hashBefore)
    }))

  it.effect("a user who belongs to no organization opens their invitation and joins", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const org = yield* organization("lone")
      const owner = yield* signedIn(server, org.owner)
      const lone = yield* newMember(server, org, owner, "Viewer", "lone")
      expect((yield* owner.post(`/app/team/members/${lone.userId}/remove`, { confirm: "yes" })).status).toBe(303)

      const person = yield* signedIn(server, lone)
      expect((yield* person.get("/app/events")).status).toBe(403)
      const account = yield* person.get("/app/account")
      expect(account.status).toBe(200)
      expect(textOf(account.html)).toContain("You are not a member of any organization")
      // signing out works without an organization as well
      const elsewhere = yield* signedIn(server, lone)
      expect((yield* elsewhere.post("/app/account/sign-out")).location).toBe("/app/login?signedOut=1")
      expect((yield* elsewhere.get("/app/account")).status).toBe(303)

      const invited = yield* addThroughPage(owner, { email: lone.email, password: "ignored for an existing user", role: "Team Member" })
      const link = inviteLinkOf(invited.html)
      const offer = yield* person.get(link)
      expect(offer.status).toBe(200)
      expect(textOf(offer.html)).toContain(`Join ${org.name} as Team Member`)
      // the form checks hold for a user of no organization too
      expect((yield* person.post(`${link}/accept`, {}, { csrf: "forged" })).status).toBe(403)
      expect((yield* person.post(`${link}/accept`, {}, { origin: "https://evil.example" })).status).toBe(403)
      const accepted = yield* person.post(`${link}/accept`)
      expect(accepted.status).toBe(303)
      expect((yield* membersOf(server, org)).find((m) => m["userId"] === lone.userId)).toMatchObject({ status: "active", role: "Team Member" })
      expect(textOf((yield* person.get("/app/account")).html)).toContain(`${org.name} · Team Member`)
    }))

  it.effect("a role change and a removal take effect at the member's next page", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const org = yield* organization("roles")
      const owner = yield* signedIn(server, org.owner)
      const admin = yield* newMember(server, org, owner, "Admin", "admin")
      const member = yield* signedIn(server, admin)
      expect((yield* member.get("/app/team/members")).status).toBe(200)

      const changed = yield* owner.post(`/app/team/members/${admin.userId}/role`, { role: "Viewer" })
      expect(changed.status).toBe(303)
      expect(textOf((yield* owner.get("/app/team/members")).html)).toContain("Ada admin is now Viewer")
      expect((yield* member.get("/app/team/members")).status).toBe(403)
      expect((yield* membersOf(server, org)).find((m) => m["userId"] === admin.userId)).toMatchObject({ role: "Viewer" })

      // removal asks first without scripts, then acts
      const asked = yield* owner.post(`/app/team/members/${admin.userId}/remove`)
      expect(asked.status).toBe(200)
      expect(textOf(asked.html)).toContain("Remove Ada admin?")
      expect((yield* membersOf(server, org)).some((m) => m["userId"] === admin.userId)).toBe(true)
      const removed = yield* owner.post(`/app/team/members/${admin.userId}/remove`, { confirm: "yes" })
      expect(removed.status).toBe(303)
      const gone = yield* member.get("/app/events")
      expect(gone.status).toBe(403)
      expect(textOf(gone.html)).toContain("No organization")
      expect((yield* membersOf(server, org)).some((m) => m["userId"] === admin.userId)).toBe(false)
    }))

  it.effect("the last Super Admin can be neither demoted nor removed: the service's message, and nothing changes", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const org = yield* organization("last")
      const owner = yield* signedIn(server, org.owner)
      const before = yield* membersOf(server, org)
      const demoted = yield* owner.post(`/app/team/members/${org.owner.userId}/role`, { role: "Admin" })
      expect(demoted.status).toBe(409)
      expect(textOf(demoted.html)).toContain("This is the organization's last Super Admin: make another member Super Admin first")
      const removed = yield* owner.post(`/app/team/members/${org.owner.userId}/remove`, { confirm: "yes" })
      expect(removed.status).toBe(409)
      expect(textOf(removed.html)).toContain("last Super Admin")
      expect(yield* membersOf(server, org)).toEqual(before)

      // with a second Super Admin, the first may step down
      const deputy = yield* newMember(server, org, owner, "Super Admin", "deputy")
      expect((yield* owner.post(`/app/team/members/${org.owner.userId}/role`, { role: "Admin" })).status).toBe(303)
      expect((yield* membersOf(server, org)).find((m) => m["userId"] === org.owner.userId)).toMatchObject({ role: "Admin" })
      expect((yield* membersOf(server, org)).find((m) => m["userId"] === deputy.userId)).toMatchObject({ role: "Super Admin" })
    }))

  it.effect("an Admin sees the members without write controls, and forged posts get 403 and change nothing", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const org = yield* organization("ro")
      const owner = yield* signedIn(server, org.owner)
      const admin = yield* newMember(server, org, owner, "Admin", "admin")
      const viewer = yield* newMember(server, org, owner, "Viewer", "viewer")
      const invited = yield* addThroughPage(owner, { email: (yield* organization("elsewhere")).owner.email, password: "ignored here", role: "Viewer" })
      expect(invited.status).toBe(200)
      const invitationId = (yield* membersOf(server, org)).find((m) => m["status"] === "invited")!["invitationId"] as string

      const asAdmin = yield* signedIn(server, admin)
      const page = yield* asAdmin.get("/app/team/members")
      expect(page.status).toBe(200)
      expect(textOf(page.html)).toContain(viewer.email)
      expect(textOf(page.html)).toContain("Pending invitations (1)")
      for (const control of ["Add a member", "/role\"", "/remove\"", "/withdraw\"", "name=\"role\""]) expect(page.html).not.toContain(control)
      const before = yield* membersOf(server, org)
      const forged = [
        yield* asAdmin.post("/app/team/members", { email: `forged-${next()}@ro.example`, password: "a long password", role: "Super Admin" }),
        yield* asAdmin.post(`/app/team/members/${viewer.userId}/role`, { role: "Super Admin" }),
        yield* asAdmin.post(`/app/team/members/${viewer.userId}/remove`, { confirm: "yes" }),
        yield* asAdmin.post(`/app/team/invitations/${invitationId}/withdraw`, { confirm: "yes" })
      ]
      expect(forged.map((r) => r.status)).toEqual([403, 403, 403, 403])
      expect(yield* membersOf(server, org)).toEqual(before)

      // below Admin, the page itself is not theirs
      expect((yield* (yield* signedIn(server, viewer)).get("/app/team/members")).status).toBe(403)
      // a Super Admin's post without the session's token, or from another site, changes nothing either
      expect((yield* owner.post(`/app/team/members/${viewer.userId}/role`, { role: "Admin" }, { csrf: "forged" })).status).toBe(403)
      expect((yield* owner.post(`/app/team/members/${viewer.userId}/role`, { role: "Admin" }, { origin: "https://evil.example" })).status)
        .toBe(403)
      expect(yield* membersOf(server, org)).toEqual(before)

      // the Super Admin withdraws the invitation: its link stops working
      const withdrawn = yield* owner.post(`/app/team/invitations/${invitationId}/withdraw`, { confirm: "yes" })
      expect(withdrawn.status).toBe(303)
      expect((yield* membersOf(server, org)).some((m) => m["status"] === "invited")).toBe(false)
    }))

  it.effect("another organization's member or invitation is unknown (404)", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const a = yield* organization("a")
      const b = yield* organization("b")
      const ownerA = yield* signedIn(server, a.owner)
      const ownerB = yield* signedIn(server, b.owner)
      yield* addThroughPage(ownerB, { email: (yield* organization("c")).owner.email, password: "ignored here", role: "Viewer" })
      const invitationOfB = (yield* membersOf(server, b)).find((m) => m["status"] === "invited")!["invitationId"] as string
      const replies = [
        yield* ownerA.post(`/app/team/members/${b.owner.userId}/role`, { role: "Viewer" }),
        yield* ownerA.post(`/app/team/members/${b.owner.userId}/remove`, { confirm: "yes" }),
        yield* ownerA.post(`/app/team/invitations/${invitationOfB}/withdraw`, { confirm: "yes" })
      ]
      expect(replies.map((r) => r.status)).toEqual([404, 404, 404])
      expect((yield* membersOf(server, b)).map((m) => [m["email"], m["role"], m["status"]])).toEqual([
        [b.owner.email, "Super Admin", "active"],
        [expect.any(String), "Viewer", "invited"]
      ])
    }))
})

layer(testServer(), { excludeTestServices: true })("dashboard: account", (it) => {
  it.effect("a password change ends every session of the user and their access tokens; the new password works", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const org = yield* organization("pw")
      const user = org.owner
      const here = yield* signedIn(server, user)
      const there = yield* signedIn(server, user)
      const api = yield* login(server, user.email, user.password, org.slug)
      expectStatus(yield* server.request("GET", "/me", { token: null, headers: api.headers }), 200)
      const page = yield* here.get("/app/account")
      expect(page.status).toBe(200)
      expect(textOf(page.html)).toContain(user.email)
      expect(textOf(page.html)).toContain(`${org.name} · Super Admin`)

      const newPassword = `a new password ${next()}`
      const changed = yield* here.post("/app/account/password", {
        currentPassword: user.password,
        newPassword,
        confirmPassword: newPassword
      })
      expect(changed.status).toBe(303)
      expect(changed.location).toBe("/app/login?passwordChanged=1")
      expect(changed.headers.getSetCookie().some((c) => /^convene_session=;/.test(c) || /convene_session=.*Max-Age=0/i.test(c))).toBe(true)

      // every session ends, this one included; old cookies lead to the sign-in page
      for (const b of [here, there]) {
        const after = yield* b.get("/app/team/members")
        expect(after.status).toBe(303)
        expect(after.location).toMatch(/^\/app\/login\?/)
      }
      expect((yield* server.request("GET", "/me", { token: null, headers: api.headers })).status).toBe(401)
      expect(yield* loginStatus(server, user.email, user.password)).toBe(401)
      expect(yield* loginStatus(server, user.email, newPassword)).toBe(200)
      const again = yield* signedIn(server, { email: user.email, password: newPassword })
      expect((yield* again.get("/app/account")).status).toBe(200)
    }))

  it.effect("a wrong current password or a bad new one changes nothing; wrong ones count toward the sign-in lockout", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const org = yield* organization("lock")
      const user = org.owner
      const b = yield* signedIn(server, user)
      const hashBefore = yield* passwordHashOf(server, user.email)

      const mismatch = yield* b.post("/app/account/password", { currentPassword: user.password, newPassword: "long enough 1", confirmPassword: "long enough 2" })
      expect(mismatch.status).toBe(400)
      expect(textOf(mismatch.html)).toContain("The two new passwords differ")
      const short = yield* b.post("/app/account/password", { currentPassword: user.password, newPassword: "short", confirmPassword: "short" })
      expect(short.status).toBe(400)
      expect(textOf(short.html)).toContain("at least 8 characters")

      for (let i = 1; i <= 10; i++) {
        const wrong = yield* b.post("/app/account/password", { currentPassword: `wrong ${i}`, newPassword: "a new password", confirmPassword: "a new password" })
        expect(wrong.status).toBe(400)
        expect(textOf(wrong.html)).toContain("That is not your current password")
      }
      // locked now, even with the right current password, here and at sign-in
      const locked = yield* b.post("/app/account/password", { currentPassword: user.password, newPassword: "a new password", confirmPassword: "a new password" })
      expect(locked.status).toBe(429)
      expect(textOf(locked.html)).toContain("Too many wrong passwords")
      expect(yield* loginStatus(server, user.email, user.password)).toBe(429)
      expect(yield* passwordHashOf(server, user.email)).toBe(hashBefore)
      // and the session that tried is still signed in
      expect((yield* b.get("/app/account")).status).toBe(200)
    }))

  it.effect("a sign-in with a huge email or password is refused at once with the limits, and the lockout counts none of it", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const org = yield* organization("huge")
      const b = browser(server)
      const hugeEmail = yield* b.signIn({ email: `${"a".repeat(500_000)}@${org.slug}.example`, password: "anything" })
      expect(hugeEmail.status).toBe(400)
      expect(textOf(hugeEmail.html)).toContain("An email has at most 320 characters and a password at most 1024.")
      expect(hugeEmail.html.length, "what was typed is not shown again").toBeLessThan(50_000)
      // more than the lockout's 10 with the owner's email: each refused before it is counted
      for (let i = 0; i < 11; i++) {
        expect((yield* b.signIn({ email: org.owner.email, password: "p".repeat(1025) })).status).toBe(400)
      }
      expect(b.session()).toBeUndefined()
      // the API's sign-in refuses it by its schema, as before; the right password still works
      expect(yield* loginStatus(server, org.owner.email, "p".repeat(1025))).toBe(400)
      expect((yield* b.signIn(org.owner)).status).toBe(303)
    }))

  it.effect("where a sign-in leads (next) holds only what a Location header can: the rest percent-encoded, never a 500", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const org = yield* organization("next")
      for (const [next, location] of [
        ["/app/events?q=a\r\nX-Injected: 1", "/app/events?q=a%0D%0AX-Injected:%201"],
        ["/app/events?q=☃", "/app/events?q=%E2%98%83"],
        ["https://evil.example/app", "/app"],
        ["//evil.example/app", "/app"]
      ] as const) {
        const reply = yield* browser(server).signIn(org.owner, next)
        expect(reply.status, next).toBe(303)
        expect(reply.location, next).toBe(location)
        expect(reply.headers.get("x-injected")).toBeNull()
      }
    }))

  it.effect("sign-out ends this session only", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const org = yield* organization("out")
      const one = yield* signedIn(server, org.owner)
      const two = yield* signedIn(server, org.owner)
      const out = yield* one.post("/app/account/sign-out")
      expect(out.status).toBe(303)
      expect(out.location).toBe("/app/login?signedOut=1")
      expect((yield* one.get("/app/account")).status).toBe(303)
      expect((yield* two.get("/app/account")).status).toBe(200)
    }))
})
