/**
 * Approving registrations in the dashboard (CONTRACT §16, "Approval"): the guest list filters
 * `Pending` guests, and a Team Member approves or declines one (its row, its page) or a selection:
 * approved guests are `Accepted` while places remain, then `Waitlisted`; declined ones `Declined`;
 * each an ordinary status change by the member (history by `user`, the `EventPerson`
 * notification). Guests no longer awaiting approval are left as they are; a Viewer cannot decide.
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { addMember, signIn, textOf } from "../support/Dashboard.js"
import { createEvent, expectStatus, uniqueEmail } from "../support/Fixtures.js"
import { type Received, receiver } from "../support/Receiver.js"
import { TestServer, testServer } from "../support/TestServer.js"

const ORIGIN = "https://convene.test"
let counter = 0

layer(testServer({ WEBHOOK_RETRY_SCHEDULE: "100ms" }), { excludeTestServices: true })("dashboard: approving registrations", (it) => {
  it.scoped("approves a selection up to the places, the rest to the waitlist; declines one; as the member, notified", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const slug = `approvals-${process.pid}-${++counter}`
      const org = yield* server.organization(slug)
      const request = (method: string, path: string, body?: unknown) =>
        Effect.map(server.request(method, path, { token: org.token, ...(body === undefined ? {} : { body }) }), (r) => expectStatus(r, 200).body)
      const event = yield* createEvent(server, { capacityEnabled: true, capacity: 3, primarySlug: slug }, org.token)
      const names = ["Holder", "Ann", "Ben", "Cat", "Dan", "Eve"]
      const added = yield* request("POST", `/event/${event.eventId}/guestlist`, {
        guests: names.map((firstName) => ({ firstName, lastName: "Guest", email: uniqueEmail(`${slug}-${firstName}`) }))
      })
      const id = Object.fromEntries((added.guests as Array<Record<string, string>>).map((g) => [g.firstName, g.personId!]))
      yield* request("PUT", `/event/${event.eventId}/guestlist`, {
        guests: [{ personId: id["Holder"], rsvpStatus: "Accepted" }, ...names.slice(1).map((n) => ({ personId: id[n], rsvpStatus: "Pending" }))]
      })
      const hook = yield* receiver
      yield* request("POST", "/webhook", { webhook: hook.url("/person"), type: "EventPerson" })
      const statusOf = Effect.map(request("GET", `/event/${event.eventId}/guestlist`), (body) =>
        Object.fromEntries((body.guests as Array<Record<string, any>>).map((g) => [g.firstName, g])))

      const account = yield* addMember({ id: org.id, slug, name: slug }, "Team Member")
      const member = yield* signIn(server.url, account, { origin: ORIGIN, next: "/app/account" })
      const list = `/app/events/${event.eventId}/guests`
      const pending = yield* member.get(`${list}?status=Pending`)
      expect(textOf(pending.html)).toContain("5 guests match")
      expect(pending.html).toContain(`aria-label="Approve Ann Guest"`)
      expect(pending.html).toContain(`<option value="approve">`)

      // Ann, Ben, Cat ticked, in list order: two places left, so Cat waits
      const bulk = yield* member.post(`${list}/bulk`, [
        ["action", "approve"], ["personId", id["Ann"]!], ["personId", id["Ben"]!], ["personId", id["Cat"]!], ["personId", id["Holder"]!], ["status", "Pending"]
      ])
      expect(bulk.status).toBe(303)
      expect(bulk.location).toBe(`${list}?status=Pending`)
      const flash = textOf((yield* member.get(bulk.location!)).html)
      expect(flash).toContain("Approved 2 guests, now coming: Ann Guest, Ben Guest.")
      expect(flash).toContain("The event is full: Cat Guest is on the waitlist")
      expect(flash).toContain("1 other selected guest was not awaiting approval")
      let now = yield* statusOf
      expect(["Holder", "Ann", "Ben", "Cat", "Dan", "Eve"].map((n) => now[n].rsvpStatus)).toEqual(
        ["Accepted", "Accepted", "Accepted", "Waitlisted", "Pending", "Pending"]
      )
      expect(now["Ann"].rsvpStatusHistory.at(-1)).toMatchObject({ status: "Accepted", actorType: "user", actorId: account.userId })
      expect(now["Cat"].rsvpStatusHistory.at(-1)).toMatchObject({ status: "Waitlisted", actorType: "user", actorId: account.userId })
      const notices: Array<Received> = []
      for (let i = 0; i < 3; i++) notices.push(yield* hook.next(8_000))
      expect(notices.map((r) => [r.json[0].firstName, r.json[0].rsvpStatus]).sort()).toEqual([["Ann", "Accepted"], ["Ben", "Accepted"], ["Cat", "Waitlisted"]])

      // one from its row: declined; one from its page: approved, full, so waitlisted behind Cat
      const row = yield* member.post(`${list}/${id["Dan"]}/approval`, [["decision", "decline"], ["status", "Pending"]])
      expect(row.location).toBe(`${list}?status=Pending`)
      const page = yield* member.get(`${list}/${id["Eve"]}`)
      expect(textOf(page.html)).toContain("Eve registered and awaits your approval")
      const one = yield* member.post(`${list}/${id["Eve"]}/approval`, [["decision", "approve"], ["from", "guest"]])
      expect(one.location).toBe(`${list}/${id["Eve"]}`)
      // deciding again changes nothing
      const again = yield* member.post(`${list}/${id["Eve"]}/approval`, [["decision", "decline"], ["from", "guest"]])
      expect(textOf((yield* member.get(again.location!)).html)).toContain("Eve Guest is not awaiting approval (Waitlisted now). Nothing was changed.")
      now = yield* statusOf
      expect([now["Dan"].rsvpStatus, now["Eve"].rsvpStatus]).toEqual(["Declined", "Waitlisted"])
      // a freed place goes to Cat, who waited longer than Eve
      yield* request("PUT", `/event/${event.eventId}/guestlist`, { guests: [{ personId: id["Ann"], rsvpStatus: "Declined" }] })
      now = yield* statusOf
      expect([now["Cat"].rsvpStatus, now["Eve"].rsvpStatus]).toEqual(["Accepted", "Waitlisted"])

      // a Viewer sees the list but cannot decide
      const viewer = yield* signIn(server.url, yield* addMember({ id: org.id, slug, name: slug }, "Viewer"), { origin: ORIGIN, next: "/app/account" })
      expect((yield* viewer.get(`${list}?status=Pending`)).html).not.toContain("Approve")
      expect((yield* viewer.post(`${list}/${id["Eve"]}/approval`, [["decision", "approve"]])).status).toBe(403)
    }))
})
