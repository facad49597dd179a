/**
 * Status emails and Reply-To (CONTRACT §17), over the application in process and a real SMTP
 * server: approval (`Pending` to `Accepted` or `Waitlisted`) and a declined approval, through
 * `PUT /event/:id/guestlist` and through the dashboard's approvals; a waitlist promotion (a place
 * freed); each email saying what changed, with the event, the guest's own RSVP link, the calendar
 * file and, when `Accepted`, the ticket (its code, and its QR code inline); the event's `replyTo` as
 * the Reply-To of these and of invitations. Other status changes email nobody; without email
 * configured, the changes go through.
 */
import { expect, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { addMember, signIn } from "../support/Dashboard.js"
import { createEvent, expectStatus, uniqueEmail } from "../support/Fixtures.js"
import { emailsTo, invite, MAIL_FROM, waitForEmails } from "../support/Invitations.js"
import { type SmtpSink, smtpSink } from "../support/SmtpSink.js"
import { TestServer, testServer } from "../support/TestServer.js"

class Sink extends Context.Tag("test/Sink")<Sink, SmtpSink>() {}

const withSmtp = Layer.unwrapScoped(Effect.map(smtpSink(), (sink) =>
  Layer.merge(testServer({ SMTP_URL: sink.url, MAIL_FROM, WEBHOOK_RETRY_SCHEDULE: "300ms" }), Layer.succeed(Sink, sink))))

const ORIGIN = "https://convene.test"
let counter = 0

/** An organization's event with guests of the given statuses (by first name), their ids and emails. */
const setUp = (statuses: Record<string, string>, fields: Record<string, unknown> = {}) =>
  Effect.gen(function*() {
    const server = yield* TestServer
    const slug = `status-mail-${process.pid}-${++counter}`
    const org = yield* server.organization(slug)
    const request = (method: string, path: string, body?: unknown) =>
      Effect.map(server.request(method, path, { token: org.token, ...(body === undefined ? {} : { body }) }), (r) => expectStatus(r, method === "POST" && path.endsWith("/invitations") ? 202 : 200).body)
    const event = yield* createEvent(server, { primarySlug: slug, replyTo: "host@acme.test", timezone: "Europe/Paris", locationName: "Grand Hall", ...fields }, org.token)
    const names = Object.keys(statuses)
    const email = Object.fromEntries(names.map((n) => [n, uniqueEmail(`${slug}-${n.toLowerCase()}`)]))
    const added = yield* request("POST", `/event/${event.eventId}/guestlist`, {
      guests: names.map((firstName) => ({ firstName, lastName: "Guest", email: email[firstName] }))
    })
    const id = Object.fromEntries((added.guests as Array<Record<string, string>>).map((g) => [g.firstName, g.personId!]))
    yield* request("PUT", `/event/${event.eventId}/guestlist`, { guests: names.map((n) => ({ personId: id[n], rsvpStatus: statuses[n] })) })
    return { server, org, slug, event, id, email, request }
  })

layer(withSmtp, { excludeTestServices: true, timeout: 120_000 })("status emails", (it) => {
  it.effect("approval and declined approval through PUT: what changed, the event, the link, the calendar, the ticket when Accepted; Reply-To", () =>
    Effect.gen(function*() {
      const sink = yield* Sink
      const { email, event, id, request } = yield* setUp({ Ann: "Pending", Ben: "Pending", Cat: "Pending", Dan: "Invited" }, {
        capacityEnabled: true,
        capacity: 1,
        virtualLocations: [{ url: "https://meet.example.com/gala", password: null, phoneNumber: null, sourceType: null }]
      })
      yield* request("PUT", `/event/${event.eventId}/guestlist`, {
        guests: [
          { personId: id["Ann"], rsvpStatus: "Accepted" },
          { personId: id["Ben"], rsvpStatus: "Waitlisted" },
          { personId: id["Cat"], rsvpStatus: "Declined" },
          // not a decision on a registration: no email
          { personId: id["Dan"], rsvpStatus: "Maybe" }
        ]
      })
      const mails = yield* waitForEmails(sink, [email["Ann"]!, email["Ben"]!, email["Cat"]!])
      const to = (name: string) => mails.find((m) => m.to.includes(email[name]!))!
      const ann = to("Ann")
      expect(ann.parsed.subject).toBe(`You're in: ${event.name}`)
      expect(ann.parsed.replyTo?.text).toBe("host@acme.test")
      expect(ann.parsed.text).toContain("Your registration was approved: you have a place.")
      expect(ann.parsed.text).toContain("(Europe/Paris time)")
      expect(ann.parsed.text).toContain("Where: Grand Hall")
      expect(ann.parsed.text).toContain("https://meet.example.com/gala")
      expect(ann.parsed.text).toMatch(/Your ticket: [0-9A-Z]{5}-[0-9A-Z]{5}/)
      expect(ann.parsed.text).toMatch(/https:\/\/convene\.test\/rsvp\/[^?]+\?invite=\S+/)
      // the HTML shows the attached QR code (mailparser resolves the cid: reference to the image itself)
      expect(ann.parsed.html).toContain(`src="data:image/png;base64,`)
      const files = ann.parsed.attachments.map((a) => [a.filename, a.contentType]).sort()
      expect(files).toEqual([["event.ics", "text/calendar"], ["ticket.png", "image/png"]])
      expect(ann.parsed.attachments.find((a) => a.filename === "ticket.png")!.cid).toBe("ticket@convene")
      // the link is the guest's own, the one the list shows
      const list = (yield* request("GET", `/event/${event.eventId}/guestlist`)).guests as Array<Record<string, string>>
      expect(ann.parsed.text).toContain(list.find((g) => g.firstName === "Ann")!.rsvpLink)

      const ben = to("Ben")
      expect(ben.parsed.subject).toBe(`You're on the waitlist: ${event.name}`)
      expect(ben.parsed.text).not.toContain("Your ticket")
      expect(ben.parsed.attachments.map((a) => a.filename)).toEqual(["event.ics"])
      expect(to("Cat").parsed.subject).toBe(`Your registration for ${event.name}`)
      expect(to("Cat").parsed.text).toContain("your registration was not accepted")
      yield* Effect.sleep("500 millis")
      expect(emailsTo(sink, [email["Dan"]!])).toEqual([])

      // a waitlist promotion: Ann cannot come, Ben takes the place and gets his ticket
      yield* request("PUT", `/event/${event.eventId}/guestlist`, { guests: [{ personId: id["Ann"], rsvpStatus: "Declined" }] })
      yield* Effect.iterate(0, { while: () => emailsTo(sink, [email["Ben"]!]).length < 2, body: (n) => Effect.as(Effect.sleep(25), n + 1) })
      const promoted = emailsTo(sink, [email["Ben"]!])[1]!
      expect(promoted.parsed.subject).toBe(`A place for you: ${event.name}`)
      expect(promoted.parsed.text).toMatch(/Your ticket: [0-9A-Z]{5}-[0-9A-Z]{5}/)
      expect(promoted.parsed.replyTo?.text).toBe("host@acme.test")
      // Ann's own decline is not news by email
      expect(emailsTo(sink, [email["Ann"]!])).toHaveLength(1)
    }))

  it.effect("approving and declining in the dashboard email the guests", () =>
    Effect.gen(function*() {
      const sink = yield* Sink
      const { email, event, id, org, server, slug } = yield* setUp({ Eve: "Pending", Fay: "Pending" })
      const account = yield* addMember({ id: org.id, slug, name: slug }, "Team Member")
      const member = yield* signIn(server.url, account, { origin: ORIGIN, next: "/app/account" })
      const list = `/app/events/${event.eventId}/guests`
      expect((yield* member.post(`${list}/${id["Eve"]}/approval`, [["decision", "approve"], ["from", "guest"]])).status).toBe(303)
      expect((yield* member.post(`${list}/${id["Fay"]}/approval`, [["decision", "decline"], ["from", "guest"]])).status).toBe(303)
      const mails = yield* waitForEmails(sink, [email["Eve"]!, email["Fay"]!])
      expect(mails.map((m) => [m.to[0], m.parsed.subject]).sort()).toEqual(
        [[email["Eve"], `You're in: ${event.name}`], [email["Fay"], `Your registration for ${event.name}`]].sort()
      )
    }))

  it.effect("invitations carry the event's Reply-To; an event without one sends none", () =>
    Effect.gen(function*() {
      const sink = yield* Sink
      const withReply = yield* setUp({ Gus: "Invited" })
      const without = yield* setUp({ Hal: "Invited" }, { replyTo: null })
      expectStatus(yield* invite(withReply.server, withReply.event.eventId, { personIds: [withReply.id["Gus"]] }, { token: withReply.org.token }), 202)
      expectStatus(yield* invite(without.server, without.event.eventId, { personIds: [without.id["Hal"]] }, { token: without.org.token }), 202)
      const [gus, hal] = [yield* waitForEmails(sink, [withReply.email["Gus"]!]), yield* waitForEmails(sink, [without.email["Hal"]!])]
      expect(gus[0]!.parsed.replyTo?.text).toBe("host@acme.test")
      expect(hal[0]!.parsed.replyTo).toBeUndefined()
    }))
})

layer(testServer(), { excludeTestServices: true })("status emails without email configured", (it) => {
  it.effect("an approval and a promotion go through, nothing fails", () =>
    Effect.gen(function*() {
      const { event, id, request } = yield* setUp({ Ivy: "Pending", Jo: "Accepted", Kim: "Waitlisted" }, { capacityEnabled: true, capacity: 1 })
      yield* request("PUT", `/event/${event.eventId}/guestlist`, { guests: [{ personId: id["Ivy"], rsvpStatus: "Declined" }, { personId: id["Jo"], rsvpStatus: "Declined" }] })
      const list = (yield* request("GET", `/event/${event.eventId}/guestlist`)).guests as Array<Record<string, string>>
      expect(list.map((g) => [g.firstName, g.rsvpStatus])).toEqual([["Ivy", "Declined"], ["Jo", "Declined"], ["Kim", "Accepted"]])
    }))
})
