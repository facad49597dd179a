/**
 * The dashboard's invitations (docs/integrators.md#email-invitations) over HTTP: from the guest list's selection (its
 * checkboxes, no script) or by RSVP status, to a preview of the real email, to sending (the flash
 * says how many were queued, the API's log and the SMTP server see the same emails); the log with
 * its states; roles (Team Member sends, a Viewer reads and gets 403 on forged posts); another
 * organization's event unknown; bad input re-rendered with errors and nothing sent; and a server
 * without email saying how to set it up, with no way to send.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Context, Effect, Layer, Option, Redacted } from "effect"
import type { Role } from "../../src/Domain/Role.js"
import { Members } from "../../src/Organizations/Members.js"
import { createEvent, expectStatus, uniqueEmail } from "../support/Fixtures.js"
import { type SmtpSink, smtpSink } from "../support/SmtpSink.js"
import { TestServer, testServer } from "../support/TestServer.js"

const ORIGIN = "https://convene.test"
const MAIL_FROM = "Acme Events <events@acme.test>"

class Sink extends Context.Tag("test/DashboardSink")<Sink, SmtpSink>() {}

type Server = TestServer["Type"]

interface Page {
  readonly status: number
  readonly html: string
  readonly location: string | null
}

let counter = 0
const next = () => `${process.pid}-${++counter}`

const csrfOf = (html: string) => /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? ""
const decodeEntities = (text: string) =>
  text.replace(/&(lt|gt|quot|#39|#x27|amp);/g, (_, e: string) => ({ lt: "<", gt: ">", quot: "\"", "#39": "'", "#x27": "'", amp: "&" })[e]!)
/** What the page says: tags dropped, entities decoded, white space folded. */
const textOf = (html: string) => decodeEntities(html.replace(/<[^>]+>/g, " ")).replace(/\s+/g, " ")

const fetchPage = (url: string, init: RequestInit) =>
  Effect.promise(async () => {
    const response = await fetch(url, { ...init, redirect: "manual" })
    return { response, page: { status: response.status, html: await response.text(), location: response.headers.get("location") } as Page }
  })

/** A member signed in through the sign-in form: GET pages, POST forms with the session's CSRF token. */
const signIn = (server: Server, email: string, password: string) =>
  Effect.gen(function*() {
    const form = yield* fetchPage(`${server.url}/app/login`, {})
    const signInCookie = form.response.headers.getSetCookie().find((c) => c.startsWith("convene_signin="))!.split(";")[0]!
    const signedIn = yield* fetchPage(`${server.url}/app/login`, {
      method: "POST",
      headers: { cookie: signInCookie, origin: ORIGIN, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ _csrf: csrfOf(form.page.html), email, password, next: "/app/account" }).toString()
    })
    expect(signedIn.page.status, signedIn.page.html).toBe(303)
    const cookie = signedIn.response.headers.getSetCookie().find((c) => c.startsWith("convene_session="))!.split(";")[0]!
    const get = (path: string) => Effect.map(fetchPage(server.url + path, { headers: { cookie } }), (r) => r.page)
    const csrf = csrfOf((yield* get("/app/account")).html)
    return {
      get,
      post: (path: string, fields: ReadonlyArray<readonly [string, string]> = [], forged: { csrf?: string } = {}) =>
        Effect.map(
          fetchPage(server.url + path, {
            method: "POST",
            headers: { cookie, origin: ORIGIN, "content-type": "application/x-www-form-urlencoded" },
            body: new URLSearchParams([["_csrf", forged.csrf ?? csrf], ...fields.map(([name, value]) => [name, value])]).toString()
          }),
          (r) => r.page
        )
    }
  })
type Browser = Effect.Effect.Success<ReturnType<typeof signIn>>

/** An organization with its API token and members of `roles`, each signed in. */
const organization = <const R extends ReadonlyArray<Role>>(label: string, roles: R) =>
  Effect.gen(function*() {
    const server = yield* TestServer
    const slug = `${label}-${next()}`
    const created = yield* server.organization(slug)
    const members = yield* Members
    const browsers: Array<Browser> = []
    for (const role of roles) {
      const email = uniqueEmail(`${slug}-${role.replace(" ", "").toLowerCase()}`)
      const password = `password of ${email}`
      yield* members.addDirectly({ id: created.id, slug, name: `${label} org` }, {
        email,
        password: Option.some(Redacted.make(password)),
        firstName: "Pat",
        lastName: role,
        role
      }).pipe(Effect.orDie)
      browsers.push(yield* signIn(server, email, password))
    }
    return { token: created.token, members: browsers as { [K in keyof R]: Browser } }
  })

/** An event of the organization with guests (new persons), by the API. */
const eventWithGuests = (token: string, names: ReadonlyArray<string>, fields: Record<string, unknown> = {}) =>
  Effect.gen(function*() {
    const server = yield* TestServer
    const event = yield* createEvent(server, { timezone: "America/New_York", ...fields }, token)
    const guests = names.map((name) => ({ firstName: name, lastName: "Guest", email: uniqueEmail(name.toLowerCase()) }))
    const added = expectStatus(yield* server.request("POST", `/event/${event.eventId}/guestlist`, { token, body: { guests } }), 200)
    return { event, guests: (added.body.guests as Array<{ personId: string; email: string; firstName: string }>) }
  })

const apiLog = (token: string, eventId: string) =>
  Effect.flatMap(TestServer, (server) =>
    Effect.map(server.request("GET", `/event/${eventId}/invitations?limit=100`, { token }), (r) => expectStatus(r, 200).body))

const waitFor = (sink: SmtpSink, addresses: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const started = Date.now()
    const mine = () => sink.received.filter((m) => addresses.includes(m.to[0] ?? ""))
    while (mine().length < addresses.length) {
      if (Date.now() - started > 15_000) return yield* Effect.dieMessage(`${mine().length} of ${addresses.length} emails arrived`)
      yield* Effect.sleep("25 millis")
    }
    return mine()
  })

const withSmtp = Layer.unwrapScoped(Effect.map(smtpSink(), (sink) =>
  Layer.merge(testServer({ SMTP_URL: sink.url, MAIL_FROM, WEBHOOK_RETRY_SCHEDULE: "300ms" }), Layer.succeed(Sink, sink))))

layer(withSmtp, { excludeTestServices: true, timeout: 120_000 })("dashboard: invitations", (it) => {
  it.effect("a Team Member sends to the guests ticked on the guest list: preview of the real email, flash, the log, the same emails", () =>
    Effect.gen(function*() {
      const sink = yield* Sink
      const { members: [teamMember], token } = yield* organization("inv", ["Team Member"] as const)
      const { event, guests } = yield* eventWithGuests(token, ["Ada", "Grace", "Alan"], { name: "Winter <Ball>", primaryDate: "2031-12-05T19:00:00-05:00" })
      const base = `/app/events/${event.eventId}`

      // the guest list offers it, and its button posts the list's own form (the ticked guests)
      const list = yield* teamMember.get(`${base}/guests`)
      expect(list.html).toMatch(/<button[^>]*form="bulk"[^>]*formaction="\/app\/events\/[^"]+\/invitations\/new"[^>]*>Send invitations<\/button>/)
      const chosen = [guests[0]!, guests[1]!]
      const compose = yield* teamMember.post(`${base}/invitations/new`, [["action", ""], ...chosen.map((g) => ["personId", g.personId] as const)])
      expect(compose.status).toBe(200)
      const composeText = textOf(compose.html)
      expect(composeText).toContain("The 2 guests you selected")
      expect(composeText).toContain(chosen[0]!.email)
      expect(compose.html).toMatch(/id="audience-selected"[^>]*checked/)

      // preview: the email one of them will get, from the real template
      const fields = [
        ["audience", "selected"],
        ...chosen.map((g) => ["personId", g.personId] as const),
        ["subject", "Dance with us"],
        ["message", "Hello friends,\n\nDo come!"]
      ] as ReadonlyArray<readonly [string, string]>
      const preview = yield* teamMember.post(`${base}/invitations/preview`, fields)
      expect(preview.status).toBe(200)
      const previewText = textOf(preview.html)
      expect(previewText).toContain("2 guests will get this email")
      expect(previewText).toContain(`The email ${chosen[0]!.firstName} Guest will get`)
      expect(previewText).toContain("Dance with us")
      expect(previewText).toContain("Do come!")
      expect(previewText).toContain("Winter <Ball>")
      expect(preview.html).not.toContain("<Ball>")
      expect(previewText).toContain("Friday, December 5, 2031 at 7:00 PM EST (America/New_York time)")
      expect(previewText).toContain("Acme Events <events@acme.test>")
      expect(preview.html.match(/<h1[\s>]/g)).toHaveLength(1)
      expect(preview.html).not.toMatch(/\sstyle="/)
      // previewing sent nothing
      expect((yield* apiLog(token, event.eventId)).total).toBe(0)

      const sent = yield* teamMember.post(`${base}/invitations`, fields)
      expect(sent.status).toBe(303)
      expect(sent.location).toBe(`${base}/invitations`)
      const log = yield* teamMember.get(`${base}/invitations`)
      expect(textOf(log.html)).toContain("2 invitations queued.")
      const mails = yield* waitFor(sink, chosen.map((g) => g.email))
      expect(mails.map((m) => m.parsed.subject)).toEqual(["Dance with us", "Dance with us"])
      const api = yield* apiLog(token, event.eventId)
      expect(api.total).toBe(2)
      expect(api.invitations.map((i: any) => i.personId).sort()).toEqual(chosen.map((g) => g.personId).sort())

      // the log: recipients, states as text, attempts, sent times
      yield* Effect.sleep("300 millis")
      const settled = textOf((yield* teamMember.get(`${base}/invitations`)).html)
      expect(settled).toContain(`${chosen[0]!.firstName} Guest`)
      expect(settled).toContain("Sent")
      expect(settled).toContain("2 invitations, newest first")
    }))

  it.effect("by RSVP status, with a flash counting only those guests; empty states before", () =>
    Effect.gen(function*() {
      const sink = yield* Sink
      const { members: [teamMember], token } = yield* organization("status", ["Team Member"] as const)
      const server = yield* TestServer
      const { event, guests } = yield* eventWithGuests(token, ["Kim", "Lee", "Max"])
      expectStatus(
        yield* server.request("PUT", `/event/${event.eventId}/guestlist`, { token, body: { guests: [{ personId: guests[0]!.personId, rsvpStatus: "Accepted" }] } }),
        200
      )
      const base = `/app/events/${event.eventId}`
      const empty = textOf((yield* teamMember.get(`${base}/invitations`)).html)
      expect(empty).toContain("No invitations sent yet")
      const form = yield* teamMember.get(`${base}/invitations/new`)
      expect(form.status).toBe(200)
      expect(form.html).toMatch(/id="s-Invited"[^>]*checked/)
      expect(textOf(form.html)).toContain("Invited (2)")
      const preview = yield* teamMember.post(`${base}/invitations/preview`, [["audience", "statuses"], ["status", "Accepted"]])
      expect(textOf(preview.html)).toContain("1 guest will get this email")
      const sent = yield* teamMember.post(`${base}/invitations`, [["audience", "statuses"], ["status", "Accepted"]])
      expect(sent.status).toBe(303)
      expect(textOf((yield* teamMember.get(`${base}/invitations`)).html)).toContain("1 invitation queued.")
      const [mail] = yield* waitFor(sink, [guests[0]!.email])
      expect(mail!.parsed.subject).toBe(`Invitation: ${event.name}`)
    }))

  it.effect("bad input re-renders the form with errors, keeps what was typed, and sends nothing", () =>
    Effect.gen(function*() {
      const { members: [teamMember], token } = yield* organization("bad", ["Team Member"] as const)
      const { event, guests } = yield* eventWithGuests(token, ["Una"])
      const base = `/app/events/${event.eventId}`
      const noStatus = yield* teamMember.post(`${base}/invitations/preview`, [["audience", "statuses"], ["message", "kept words"]])
      expect(noStatus.status).toBe(400)
      expect(textOf(noStatus.html)).toContain("Choose at least one RSVP status.")
      expect(textOf(noStatus.html)).toContain("kept words")
      const nobody = yield* teamMember.post(`${base}/invitations/preview`, [["audience", "statuses"], ["status", "Waitlisted"]])
      expect(nobody.status).toBe(400)
      expect(textOf(nobody.html)).toContain("No guest has these RSVP statuses")
      const longSubject = yield* teamMember.post(`${base}/invitations`, [["audience", "selected"], ["personId", guests[0]!.personId], ["subject", "x".repeat(201)]])
      expect(longSubject.status).toBe(400)
      expect(textOf(longSubject.html)).toMatch(/The subject must be at most 200 characters/)
      const stranger = yield* teamMember.post(`${base}/invitations`, [["audience", "selected"], ["personId", "00000000-0000-4000-8000-000000000000"]])
      expect(stranger.status).toBe(400)
      expect((yield* apiLog(token, event.eventId)).total).toBe(0)
    }))

  it.effect("a Viewer reads the log, sees no send control, and gets 403 on forged posts; another organization's event is unknown", () =>
    Effect.gen(function*() {
      const { members: [viewer, teamMember], token } = yield* organization("roles", ["Viewer", "Team Member"] as const)
      const { event, guests } = yield* eventWithGuests(token, ["Vic"])
      const base = `/app/events/${event.eventId}`
      expect((yield* teamMember.post(`${base}/invitations`, [["audience", "selected"], ["personId", guests[0]!.personId]])).status).toBe(303)
      const log = yield* viewer.get(`${base}/invitations`)
      expect(log.status).toBe(200)
      expect(textOf(log.html)).toContain("Vic Guest")
      expect(textOf(log.html)).not.toContain("Send invitations")
      expect((yield* viewer.get(`${base}/guests`)).html).not.toContain("Send invitations")
      expect((yield* viewer.get(`${base}/invitations/new`)).status).toBe(403)
      for (const path of ["/invitations/new", "/invitations/preview", "/invitations"]) {
        const forged = yield* viewer.post(`${base}${path}`, [["audience", "selected"], ["personId", guests[0]!.personId]])
        expect(forged.status, path).toBe(403)
      }
      expect((yield* apiLog(token, event.eventId)).total).toBe(1)
      // a forged CSRF token changes nothing either
      expect((yield* teamMember.post(`${base}/invitations`, [["audience", "selected"], ["personId", guests[0]!.personId]], { csrf: "forged" })).status).toBe(403)
      expect((yield* apiLog(token, event.eventId)).total).toBe(1)

      const { members: [outsider] } = yield* organization("outsider", ["Admin"] as const)
      expect((yield* outsider.get(`${base}/invitations`)).status).toBe(404)
      expect((yield* outsider.post(`${base}/invitations`, [["audience", "selected"], ["personId", guests[0]!.personId]])).status).toBe(404)
    }))

  it.effect("an event without a page address explains why nothing can be sent", () =>
    Effect.gen(function*() {
      const { members: [teamMember], token } = yield* organization("noslug", ["Team Member"] as const)
      const { event, guests } = yield* eventWithGuests(token, ["Noa"], { primarySlug: null })
      const form = yield* teamMember.get(`/app/events/${event.eventId}/invitations/new`)
      expect(textOf(form.html)).toContain("This event has no page address")
      expect(form.html).toMatch(/<button type="submit" disabled/)
      const sent = yield* teamMember.post(`/app/events/${event.eventId}/invitations`, [["audience", "selected"], ["personId", guests[0]!.personId]])
      expect(sent.status).toBe(409)
      expect((yield* apiLog(token, event.eventId)).total).toBe(0)
    }))
})

describe("dashboard: invitations without email", () => {
  layer(testServer(), { excludeTestServices: true, timeout: 60_000 })("no SMTP_URL or MAIL_FROM", (it) => {
    it.effect("the pages say how to set email up and offer no send button; a post is refused", () =>
      Effect.gen(function*() {
        const { members: [admin], token } = yield* organization("nomail", ["Admin"] as const)
        const { event, guests } = yield* eventWithGuests(token, ["Ola"])
        const base = `/app/events/${event.eventId}`
        const log = yield* admin.get(`${base}/invitations`)
        const text = textOf(log.html)
        expect(text).toContain("Email is not set up on this server")
        expect(text).toContain("SMTP_URL")
        expect(text).toContain("MAIL_FROM")
        expect(log.html).not.toMatch(/href="[^"]*\/invitations\/new"/)
        expect(textOf((yield* admin.get(`${base}/invitations/new`)).html)).toContain("Email is not set up on this server")
        const refused = yield* admin.post(`${base}/invitations`, [["audience", "selected"], ["personId", guests[0]!.personId]])
        expect(refused.status).toBe(409)
        expect(textOf(refused.html)).toContain("SMTP_URL")
        expect((yield* apiLog(token, event.eventId)).total).toBe(0)
      }))
  })
})
