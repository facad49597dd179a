/**
 * The guest list's CSV export and import in the dashboard, over HTTP: the buttons by role, the
 * export (the API's own file), the import flow (upload, preview with every row error, confirm)
 * writing through the API's import (history by the member, one GuestList notification), foreign
 * events, and the event page's RSVP statuses and links.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import type { Role } from "../../src/Domain/Role.js"
import { addMember, type DashboardClient, type PageReply, SESSION_COOKIE, signIn, textOf } from "../support/Dashboard.js"
import { createEvent, createPerson, expectStatus, uniqueEmail } from "../support/Fixtures.js"
import { type Received, receiver } from "../support/Receiver.js"
import { TestServer, testServer } from "../support/TestServer.js"

/** PUBLIC_BASE_URL of the test server: what the browser sends as `Origin`. */
const ORIGIN = "https://convene.test"

type Server = TestServer["Type"]

let counter = 0
const next = () => `${process.pid}-${++counter}`

interface Member {
  readonly userId: string
  readonly browser: DashboardClient
}

/** A new organization with its API token (role Admin), and members of the given roles signed in to the dashboard. */
const organization = <const R extends ReadonlyArray<Role>>(label: string, roles: R) =>
  Effect.gen(function*() {
    const server = yield* TestServer
    const slug = `${label}-${next()}`
    const created = yield* server.organization(slug)
    const signedIn: Array<Member> = []
    for (const role of roles) {
      const added = yield* addMember({ id: created.id, slug, name: slug }, role, {
        email: uniqueEmail(`${slug}-${role.replace(" ", "").toLowerCase()}`)
      })
      signedIn.push({ userId: added.userId, browser: yield* signIn(server.url, added, { origin: ORIGIN, next: "/app/account" }) })
    }
    return { slug, token: created.token, members: signedIn as { [K in keyof R]: Member } }
  })

const guestsOf = (server: Server, token: string, eventId: string) =>
  Effect.map(server.request("GET", `/event/${eventId}/guestlist`, { token }), (r) => expectStatus(r, 200).body.guests as Array<Record<string, any>>)

/** The path of a 303's `Location` (the test server's PUBLIC_BASE_URL is another origin). */
const pathOf = (reply: PageReply) => {
  expect(reply.status, textOf(reply.html).slice(0, 400)).toBe(303)
  return new URL(reply.location!, ORIGIN).pathname
}

/** A file sent with the import page's upload form (multipart/form-data), as a browser sends it. */
const upload = (browser: DashboardClient, path: string, file: { readonly name: string; readonly text: string }, csrf?: string) =>
  Effect.gen(function*() {
    const token = csrf ?? (yield* browser.csrf)
    return yield* Effect.promise(async (): Promise<PageReply> => {
      const form = new FormData()
      form.append("_csrf", token)
      form.append("file", new Blob([file.text], { type: "text/csv" }), file.name)
      const encoded = new Response(form)
      const response = await fetch(browser.url + path, {
        method: "POST",
        body: new Uint8Array(await encoded.arrayBuffer()),
        headers: {
          ...(browser.session() === undefined ? {} : { cookie: `${SESSION_COOKIE}=${browser.session()}` }),
          origin: ORIGIN,
          "content-type": encoded.headers.get("content-type")!
        },
        redirect: "manual"
      })
      return { status: response.status, html: await response.text(), location: response.headers.get("location"), headers: response.headers }
    })
  })

/** A guest-list file of `rows` new guests, half of them Accepted; `typos` rows get a bad email and a bad status. */
const guestsFile = (label: string, rows: number, typos: ReadonlySet<number> = new Set()) => {
  const lines = ["First name,Last name,E-mail,RSVP status,Dietary needs,column:Table,Shoe size"]
  for (let i = 1; i <= rows; i++) {
    const email = typos.has(i) ? `${label}-${i}(at)example.org` : `${label}-${i}@example.org`
    const status = typos.has(i) ? "Acepted" : i % 2 === 0 ? "Accepted" : ""
    lines.push(`Imp${i},${label},${email},${status},${i % 3 === 0 ? "vegan; no nuts" : ""},${i % 10},42`)
  }
  return `${lines.join("\r\n")}\r\n`
}

layer(testServer(), { excludeTestServices: true })("guest list CSV in the dashboard", (it) => {
  describe("buttons and roles", () => {
    it.effect("every member may export, only Team Members and above import; a Viewer's forged upload is refused and changes nothing", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { members: [viewer, teamMember], token } = yield* organization("csv-roles", ["Viewer", "Team Member"])
        const event = yield* createEvent(server, { ticketingEnabled: true, customColumns: ["Table"] }, token)
        const personId = yield* createPerson(server, { firstName: "=cmd", lastName: "Guest" }, token)
        expectStatus(yield* server.request("POST", `/event/${event.eventId}/guestlist`, { token, body: { guests: [{ personId }] } }), 200)
        const list = `/app/events/${event.eventId}/guests`

        const seen = yield* viewer.browser.get(list)
        expect(seen.status).toBe(200)
        expect(seen.html).toContain(`href="${list}/export"`)
        expect(seen.html).not.toContain(`href="${list}/import"`)
        expect(textOf(seen.html)).not.toContain("Import CSV")
        const written = yield* teamMember.browser.get(list)
        expect(written.html).toContain(`href="${list}/export">Export CSV</a>`)
        expect(written.html).toContain(`href="${list}/import">Import CSV</a>`)

        // the export is the API's file, with the same headers; a Viewer's lacks the payment columns, as the API's does
        const file = yield* viewer.browser.get(`${list}/export`)
        expect(file.status).toBe(200)
        expect(file.headers.get("content-type")).toBe("text/csv; charset=utf-8")
        expect(file.headers.get("content-disposition")).toMatch(/^attachment; filename="guests-[a-z0-9-]+-\d{4}-\d{2}-\d{2}\.csv"$/)
        expect(file.html.split("\r\n")[0]).not.toContain("paymentStatus")
        expect(file.html).toContain("'=cmd")
        const api = yield* server.request("GET", `/event/${event.eventId}/guestlist/export`, { token })
        expect(api.text.split("\r\n")[0]).toContain("paymentStatus")
        const full = yield* teamMember.browser.get(`${list}/export`)
        expect(full.html).toBe(api.text)

        // the import flow is the Team Member's: a Viewer gets 403 pages, and a forged upload keeps nothing
        expect((yield* viewer.browser.get(`${list}/import`)).status).toBe(403)
        const forged = yield* upload(viewer.browser, `${list}/import`, { name: "x.csv", text: guestsFile("forged", 2) })
        expect(forged.status).toBe(403)
        expect((yield* viewer.browser.post(`${list}/import/anything`)).status).toBe(403)
        expect(yield* guestsOf(server, token, event.eventId)).toHaveLength(1)
        expect((yield* teamMember.browser.get(`${list}/import`)).status).toBe(200)
      }))

    it.effect("another organization's event is not found, for the export and the import alike", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { members: [member] } = yield* organization("csv-mine", ["Admin"])
        const other = yield* organization("csv-theirs", [])
        const theirs = yield* createEvent(server, {}, other.token)
        const list = `/app/events/${theirs.eventId}/guests`
        expect((yield* member.browser.get(`${list}/export`)).status).toBe(404)
        expect((yield* member.browser.get(`${list}/import`)).status).toBe(404)
        expect((yield* upload(member.browser, `${list}/import`, { name: "x.csv", text: guestsFile("theirs", 1) })).status).toBe(404)
        expect(yield* guestsOf(server, other.token, theirs.eventId)).toEqual([])
      }))
  })

  describe("the import flow", () => {
    it.scoped("a file with a typo row first: the preview lists its errors and writes nothing; the fixed file imports every guest, with a flash of the counts", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { members: [member, colleague], token } = yield* organization("csv-flow", ["Team Member", "Team Member"])
        const hook = yield* receiver
        expectStatus(yield* server.request("POST", "/webhook", { token, body: { webhook: hook.url("/list"), type: "GuestList" } }), 200)
        const event = yield* createEvent(server, { name: "Import Night", customColumns: ["Table"] }, token)
        const other = yield* createEvent(server, { name: "Other Night" }, token)
        const list = `/app/events/${event.eventId}/guests`
        const label = `flow${next()}`

        const form = yield* member.browser.get(`${list}/import`)
        expect(form.status).toBe(200)
        expect(form.html).toContain(`enctype="multipart/form-data"`)
        expect(form.html).toContain(`href="${list}/export"`)
        const formText = textOf(form.html)
        expect(formText).toContain("Import guests")
        expect(formText).toContain("column:Table")
        expect(formText).toContain("RSVP status: Invited, Accepted, Declined, Maybe, Waitlisted or Pending")

        // the typo is in the first row
        const typo = yield* upload(member.browser, `${list}/import`, { name: "guests.csv", text: guestsFile(label, 300, new Set([1])) })
        const draft = pathOf(typo)
        expect(draft).toMatch(new RegExp(`^${list}/import/[A-Za-z0-9_-]{32,}$`))
        const preview = yield* member.browser.get(draft)
        expect(preview.status).toBe(200)
        const text = textOf(preview.html)
        expect(text).toContain("Check guests.csv before anything is written.")
        expect(text).toMatch(/300 rows read 299 added to the list 299 new contacts 0 updated 0 unchanged 2 errors/)
        // every error of the row, in the file's column order
        expect(text).toContain("Row 1 E-mail must be an email address Row 1 RSVP status must be one of Invited, Accepted, Declined, Maybe, Waitlisted or Pending")
        expect(text).toContain("Shoe size Ignored: unknown column")
        expect(text).toContain("RSVP status → RSVP status")
        expect(text).toContain("Dietary needs → Dietary restrictions")
        expect(text).toContain("column:Table → Custom column “Table”")
        expect(preview.html).toMatch(/<button type="button" class="big" disabled[^>]*>Import 300 guests<\/button>/)
        // nothing written, even by a forged confirmation
        const forced = yield* member.browser.post(draft)
        expect(forced.status).toBe(422)
        expect(textOf(forced.html)).toContain("Nothing was imported")
        expect(yield* guestsOf(server, token, event.eventId)).toEqual([])
        // the draft is its uploader's only, and this event's only
        expect((yield* colleague.browser.get(draft)).status).toBe(404)
        expect((yield* member.browser.get(draft.replace(event.eventId, other.eventId))).status).toBe(404)

        const fixed = yield* upload(member.browser, `${list}/import`, { name: "guests-fixed.csv", text: guestsFile(label, 300) })
        const second = pathOf(fixed)
        const ready = textOf((yield* member.browser.get(second)).html)
        expect(ready).toMatch(/300 rows read 300 added to the list 300 new contacts 0 updated 0 unchanged 0 errors/)
        expect(yield* guestsOf(server, token, event.eventId)).toEqual([])

        const imported = yield* member.browser.post(second)
        expect(pathOf(imported)).toBe(list)
        const page = yield* member.browser.get(list)
        expect(textOf(page.html)).toContain(
          "Imported 300 rows from guests-fixed.csv into the guest list: 300 added to the list, 300 new contacts, 0 updated, 0 unchanged."
        )
        const guests = yield* guestsOf(server, token, event.eventId)
        expect(guests).toHaveLength(300)
        const sample = guests.find((g) => g.email === `${label}-6@example.org`)!
        expect(sample).toMatchObject({ firstName: "Imp6", rsvpStatus: "Accepted", dietaryRestrictions: ["vegan", "no nuts"], customColumns: { Table: "6" } })
        // written as the API writes it: history by the member (actor user), one GuestList notification for the import
        expect(sample["rsvpStatusHistory"].map((h: any) => [h.status, h.actorType, h.actorId])).toEqual([
          ["Invited", "user", member.userId],
          ["Accepted", "user", member.userId]
        ])
        const arrived: Array<Received> = [yield* hook.next()]
        const more = yield* Effect.either(Effect.timeout(hook.next(3_000), 1_000))
        if (more._tag === "Right") arrived.push(more.right)
        expect(arrived).toHaveLength(1)
        expect(arrived[0]!.json).toHaveLength(300)
        // the draft is gone with the import
        expect((yield* member.browser.post(second)).status).toBe(404)
      }))
  })

  describe("the event page", () => {
    it.effect("lists the RSVP statuses in the guest list's order, and links to the invitations log", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { members: [viewer], token } = yield* organization("csv-event", ["Viewer"])
        const event = yield* createEvent(server, {}, token)
        const order = ["Invited", "Accepted", "Declined", "Maybe", "Waitlisted"]
        const positions = (html: string, path: string) => order.map((s) => html.indexOf(`${path}?status=${s}"`))
        const page = yield* viewer.browser.get(`/app/events/${event.eventId}`)
        expect(page.status).toBe(200)
        const statuses = positions(page.html, `/app/events/${event.eventId}/guests`)
        expect(statuses.every((p) => p > 0)).toBe(true)
        expect([...statuses].sort((a, b) => a - b)).toEqual(statuses)
        expect(page.html).toContain(`href="/app/events/${event.eventId}/invitations">Invitations</a>`)
        expect((yield* viewer.browser.get(`/app/events/${event.eventId}/invitations`)).status).toBe(200)
        const list = yield* viewer.browser.get(`/app/events/${event.eventId}/guests`)
        const listed = positions(list.html, `/app/events/${event.eventId}/guests`)
        expect(listed.every((p) => p > 0)).toBe(true)
        expect([...listed].sort((a, b) => a - b)).toEqual(listed)
      }))
  })
})
