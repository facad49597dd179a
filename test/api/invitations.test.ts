/**
 * Invitations by email (docs/integrators.md#email-invitations) over a real server and a real SMTP server (smtp-server),
 * each email parsed with mailparser and its calendar file with ical.js: what one email holds, who
 * gets one, the refusals, the roles, and the outbox's guarantees for emails (retried after a 4xx,
 * failed at once on a 5xx, one transaction for 500, nothing twice on an idempotent replay). Every
 * email sent after a SIGKILL, and what a failing SMTP server costs the rest of the service:
 * test/slow/invitations-restart.test.ts.
 */
import { expect, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import ICAL from "ical.js"
import { queryDatabase } from "../support/Engine.js"
import { createPerson, expectError, expectStatus, login, uniqueEmail } from "../support/Fixtures.js"
import { outboxSettled } from "../support/Outbox.js"
import { type ReceivedEmail, type SmtpSink, smtpSink } from "../support/SmtpSink.js"
import { ADMIN_EMAIL, ADMIN_PASSWORD, TestServer, testServer } from "../support/TestServer.js"
import { emailsTo, eventWithGuests, invitations, invite, MAIL_FROM, waitForEmails } from "../support/Invitations.js"

class Sink extends Context.Tag("test/Sink")<Sink, SmtpSink>() {}

/** A test server sending through a fresh SMTP server. */
const withSmtp = (env: Record<string, string> = {}) =>
  Layer.unwrapScoped(Effect.map(smtpSink(), (sink) =>
    Layer.merge(
      testServer({ SMTP_URL: sink.url, MAIL_FROM, WEBHOOK_RETRY_SCHEDULE: "300ms,300ms,300ms", ...env }),
      Layer.succeed(Sink, sink)
    )))

type Server = TestServer["Type"]

/** Waits until the event's invitations are all in a final state (or `want` holds). */
const settle = (server: Server, eventId: string, want: (body: any) => boolean, timeoutMs = 20_000) =>
  Effect.gen(function*() {
    const started = Date.now()
    for (;;) {
      const body = yield* invitations(server, eventId, "?limit=100")
      if (want(body)) return body
      if (Date.now() - started > timeoutMs) return yield* Effect.dieMessage(`invitations never settled: ${JSON.stringify(body)}`)
      yield* Effect.sleep("50 millis")
    }
  })

const calendarOf = (mail: ReceivedEmail) => {
  const attachment = mail.parsed.attachments.find((a) => a.filename === "invitation.ics")!
  const component = new ICAL.Component(ICAL.parse(attachment.content.toString("utf8")))
  return { attachment, component, event: new ICAL.Event(component.getFirstSubcomponent("vevent")!) }
}

/** The link of an email, on the test server (PUBLIC_BASE_URL is https://convene.test). */
const localLink = (server: Server, link: string) => link.replace("https://convene.test", server.url)

const member = (server: Server, role: string) =>
  Effect.gen(function*() {
    const owner = yield* login(server, ADMIN_EMAIL, ADMIN_PASSWORD, "acme")
    const email = uniqueEmail(role.replace(" ", "").toLowerCase())
    const password = `pw-${email}`
    expectStatus(
      yield* server.request("POST", "/member", { token: null, headers: owner.headers, body: { email, password, firstName: "M", lastName: role, role } }),
      200
    )
    return (yield* login(server, email, password, "acme")).headers
  })

layer(withSmtp(), { timeout: 120_000, excludeTestServices: true })("invitations by email", (it) => {
  it.effect("one email per named guest: both parts, the RSVP link that works, the calendar file, the headers", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const sink = yield* Sink
      sink.answer = () => "accept"
      const { event, guests } = yield* eventWithGuests(server, 2, {
        name: "Summer Gala",
        primaryDate: "2031-06-01T20:00:00+02:00",
        virtualLocations: [{ url: "https://meet.example.com/gala", password: null, phoneNumber: null, sourceType: null }]
      })
      const reply = expectStatus(
        yield* invite(server, event.eventId, {
          personIds: guests.map((g) => g.personId),
          subject: "Join us for the Summer Gala",
          message: "We would love to see you.\n\nBring a friend!"
        }),
        202
      )
      expect(reply.body).toEqual({ queued: 2, skipped: 0 })
      const mails = yield* waitForEmails(sink, guests.map((g) => g.email))
      expect(mails).toHaveLength(2)

      const links = (yield* server.request("GET", `/event/${event.eventId}/guestlist`)).body.guests as Array<{ email: string; rsvpLink: string; firstName: string }>
      for (const guest of guests) {
        const mail = emailsTo(sink, [guest.email])[0]!
        const { parsed } = mail
        expect(mail.from).toBe("events@acme.test")
        expect(parsed.from?.value[0]).toMatchObject({ address: "events@acme.test", name: "Acme Events" })
        expect(parsed.to && !Array.isArray(parsed.to) ? parsed.to.value[0]!.address : undefined).toBe(guest.email)
        expect(parsed.subject).toBe("Join us for the Summer Gala")
        const rsvpLink = links.find((l) => l.email === guest.email)!.rsvpLink
        expect(rsvpLink).toMatch(new RegExp(`^https://convene\\.test/rsvp/${event.primarySlug}\\?invite=[A-Za-z0-9_-]{32}$`))
        for (const part of [parsed.text!, parsed.html as string]) {
          expect(part).toContain(rsvpLink)
          expect(part).toContain("Summer Gala")
          expect(part).toContain("Sunday, June 1, 2031")
          expect(part).toContain("8:00 PM")
          expect(part).toContain("Europe/Paris")
          expect(part).toContain("Grand Hall")
          expect(part).toContain("https://meet.example.com/gala")
          expect(part).toContain("Bring a friend!")
        }
        expect(parsed.text).toContain(`Hello ${guest.firstName},`)
        // the link opens this guest's RSVP page
        const page = yield* Effect.promise(() => fetch(localLink(server, rsvpLink)))
        expect(page.status).toBe(200)
        expect(yield* Effect.promise(() => page.text())).toContain(`Will you attend, ${guest.firstName}?`)
        // the calendar file, read by an independent parser
        const { attachment, component, event: vevent } = calendarOf(mail)
        expect(attachment.contentType).toBe("text/calendar")
        expect(component.getFirstPropertyValue("method")).toBe("PUBLISH")
        expect(vevent.uid).toBe(`${event.eventId}@convene.test`)
        expect(vevent.sequence).toBe(0)
        expect(vevent.startDate.toJSDate().getTime()).toBe(Date.parse(event.primaryDate))
        expect(vevent.summary).toBe("Summer Gala")
        expect(component.getFirstSubcomponent("vevent")!.getFirstPropertyValue("url")).toBe(rsvpLink)
      }

      const log = yield* settle(server, event.eventId, (b) => b.invitations.every((i: any) => i.status === "sent"))
      expect(log.total).toBe(2)
      expect(log).toMatchObject({ limit: 100, skip: 0 })
      for (const entry of log.invitations) {
        expect(entry).toMatchObject({ status: "sent", attempts: 1, lastError: null, subject: "Join us for the Summer Gala" })
        expect(Date.parse(entry.sentAt)).not.toBeNaN()
        expect(guests.map((g) => g.personId)).toContain(entry.personId)
        expect(entry.email).toBe(guests.find((g) => g.personId === entry.personId)!.email)
      }
      // newest first; limit and skip page it
      const page = yield* invitations(server, event.eventId, "?limit=1&skip=1")
      expect(page.invitations).toHaveLength(1)
      expect(page.invitations[0].invitationId).toBe(log.invitations[1].invitationId)
    }))

  it.effect("every guest with the chosen statuses, once each; an existing RSVP link is kept", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const sink = yield* Sink
      sink.answer = () => "accept"
      const { event, guests } = yield* eventWithGuests(server, 4)
      const [accepted, maybe, declined] = guests
      expectStatus(
        yield* server.request("PUT", `/event/${event.eventId}/guestlist`, {
          body: {
            guests: [
              { personId: accepted!.personId, rsvpStatus: "Accepted" },
              { personId: maybe!.personId, rsvpStatus: "Maybe" },
              { personId: declined!.personId, rsvpStatus: "Declined" }
            ]
          }
        }),
        200
      )
      const before = (yield* server.request("GET", `/event/${event.eventId}/guestlist/search?personIds=${accepted!.personId}&generateRsvpLinks=true`))
        .body.guests[0].rsvpLink as string
      expect(expectStatus(yield* invite(server, event.eventId, { statuses: ["Accepted", "Maybe"] }), 202).body).toEqual({ queued: 2, skipped: 0 })
      const mails = yield* waitForEmails(sink, [accepted!.email, maybe!.email])
      expect(mails.map((m) => m.to[0]).sort()).toEqual([accepted!.email, maybe!.email].sort())
      expect(emailsTo(sink, [accepted!.email])[0]!.parsed.text).toContain(before)
      expect(emailsTo(sink, [accepted!.email])[0]!.parsed.subject).toBe(`Invitation: ${event.name}`)
      yield* outboxSettled(server)
      expect(emailsTo(sink, [declined!.email, guests[3]!.email])).toHaveLength(0)
      // a person named twice gets one email
      expect(expectStatus(yield* invite(server, event.eventId, { personIds: [declined!.personId, declined!.personId] }), 202).body)
        .toEqual({ queued: 1, skipped: 0 })
    }))

  it.effect("refuses a bad audience with 400 at the item, and queues nothing", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const { event, guests } = yield* eventWithGuests(server, 2)
      const outsider = yield* createPerson(server)
      const other = yield* server.organization("invitations-other")
      const foreign = yield* createPerson(server, {}, other.token)
      expectStatus(yield* server.request("DELETE", `/event/${event.eventId}/guestlist`, { body: { guests: [{ personId: guests[1]!.personId }] } }), 200)
      const refusals: Array<[unknown, string]> = [
        [{}, "personIds"],
        [{ personIds: [guests[0]!.personId], statuses: ["Invited"] }, "statuses"],
        [{ personIds: [] }, "personIds"],
        [{ personIds: Array.from({ length: 501 }, () => guests[0]!.personId) }, "personIds"],
        [{ statuses: [] }, "statuses"],
        [{ statuses: ["Going"] }, "statuses.0"],
        [{ personIds: [guests[0]!.personId, outsider] }, "personIds.1"],
        [{ personIds: [guests[0]!.personId, guests[0]!.personId, foreign] }, "personIds.2"],
        [{ personIds: [guests[1]!.personId] }, "personIds.0"],
        [{ personIds: [guests[0]!.personId], subject: "two\nlines" }, "subject"],
        [{ personIds: [guests[0]!.personId], message: "x".repeat(5001) }, "message"]
      ]
      for (const [body, path] of refusals) {
        const reply = expectError(yield* invite(server, event.eventId, body), 400, "invalid_request")
        expect(reply.body.issues.map((i: { path: string }) => i.path), JSON.stringify(body).slice(0, 200)).toContain(path)
      }
      expect((yield* invitations(server, event.eventId)).total).toBe(0)
      expectError(yield* invite(server, "00000000-0000-4000-8000-000000000000", { statuses: ["Invited"] }), 404, "not_found")
      expectError(yield* invite(server, event.eventId, { statuses: ["Invited"] }, { token: other.token }), 404, "not_found")
      expectError(yield* server.request("GET", `/event/${event.eventId}/invitations`, { token: other.token }), 404, "not_found")
      expectError(yield* server.request("GET", `/event/${event.eventId}/invitations?limit=101`), 400, "invalid_request")
    }))

  it.effect("an event without a public page cannot send invitations: 409", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const { event, guests } = yield* eventWithGuests(server, 1, { primarySlug: null })
      const reply = expectError(yield* invite(server, event.eventId, { personIds: [guests[0]!.personId] }), 409, "conflict")
      expect(reply.body.message).toMatch(/primarySlug/)
      expect((yield* invitations(server, event.eventId)).total).toBe(0)
    }))

  it.effect("Team Member and above send; a Viewer reads the log but gets 403 on sending; no credentials, 401", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const sink = yield* Sink
      sink.answer = () => "accept"
      const { event, guests } = yield* eventWithGuests(server, 1)
      const viewer = yield* member(server, "Viewer")
      const teamMember = yield* member(server, "Team Member")
      const body = { personIds: [guests[0]!.personId] }
      expectError(yield* invite(server, event.eventId, body, { token: null, headers: viewer }), 403, "forbidden")
      expectError(yield* invite(server, event.eventId, body, { token: null }), 401, "unauthorized")
      expect((yield* invitations(server, event.eventId)).total).toBe(0)
      expectStatus(yield* invite(server, event.eventId, body, { token: null, headers: teamMember }), 202)
      const log = expectStatus(yield* server.request("GET", `/event/${event.eventId}/invitations`, { token: null, headers: viewer }), 200)
      expect(log.body.total).toBe(1)
    }))

  it.effect("a 4xx is retried on the schedule, then sent once", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const sink = yield* Sink
      const { event, guests } = yield* eventWithGuests(server, 1)
      const address = guests[0]!.email
      let tries = 0
      sink.answer = (_, to) => (to === address && ++tries === 1 ? { code: 451, message: "4.7.1 Greylisted, try again later" } : "accept")
      expectStatus(yield* invite(server, event.eventId, { personIds: [guests[0]!.personId] }), 202)
      const queued = yield* settle(server, event.eventId, (b) => b.invitations[0]?.attempts === 1)
      expect(queued.invitations[0]).toMatchObject({ status: "queued", sentAt: null })
      expect(queued.invitations[0].lastError).toMatch(/451/)
      expect(queued.invitations[0].nextAttemptAt).not.toBeNull()
      const sent = yield* settle(server, event.eventId, (b) => b.invitations[0]?.status === "sent")
      expect(sent.invitations[0]).toMatchObject({ status: "sent", attempts: 2, lastError: null })
      expect(emailsTo(sink, [address])).toHaveLength(1)
      sink.answer = () => "accept"
    }))

  it.effect("a 5xx fails the email at once, without retrying", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const sink = yield* Sink
      const { event, guests } = yield* eventWithGuests(server, 1)
      const address = guests[0]!.email
      let refused = 0
      sink.answer = (_, to) => (to === address ? (refused++, { code: 550, message: "5.1.1 No such mailbox" }) : "accept")
      expectStatus(yield* invite(server, event.eventId, { personIds: [guests[0]!.personId] }), 202)
      const failed = yield* settle(server, event.eventId, (b) => b.invitations[0]?.status === "failed")
      expect(failed.invitations[0]).toMatchObject({ status: "failed", attempts: 1, sentAt: null, nextAttemptAt: null })
      expect(failed.invitations[0].lastError).toMatch(/550.*No such mailbox/)
      yield* outboxSettled(server)
      expect(refused).toBe(1)
      expect((yield* invitations(server, event.eventId)).invitations[0].attempts).toBe(1)
      sink.answer = () => "accept"
    }))

  it.effect("a delivered email's body and attachment are deleted; the listing keeps recipient, subject, state and times", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const sink = yield* Sink
      const { event, guests } = yield* eventWithGuests(server, 2)
      const [delivered, refused] = guests as [typeof guests[0], typeof guests[0]]
      sink.answer = (_, to) => (to === refused.email ? { code: 550, message: "5.1.1 No such mailbox" } : "accept")
      expectStatus(yield* invite(server, event.eventId, { personIds: [delivered.personId, refused.personId] }), 202)
      const log = yield* settle(server, event.eventId, (b) => b.invitations.every((i: any) => i.status !== "queued"))
      sink.answer = () => "accept"
      const contents = yield* Effect.promise(() =>
        queryDatabase<{ recipient: string; subject: string; text_body: string; html_body: string; attachments: string }>(
          server.databaseEnv,
          `SELECT e.recipient, e.subject, e.text_body, e.html_body, e.attachments FROM outbox_emails e
           JOIN invitations i ON i.delivery_id = e.delivery_id JOIN events v ON v.id = i.event_id WHERE v.public_id = ?`,
          [event.eventId]
        )
      )
      const byRecipient = new Map(contents.map((row) => [row.recipient, row]))
      expect(byRecipient.get(delivered.email)).toEqual({
        recipient: delivered.email,
        subject: `Invitation: ${event.name}`,
        text_body: "",
        html_body: "",
        attachments: "[]"
      })
      // a failed email keeps what it would send
      expect(byRecipient.get(refused.email)!.text_body).toContain(event.name)
      expect(JSON.parse(byRecipient.get(refused.email)!.attachments)).toHaveLength(1)
      const sent = log.invitations.find((i: any) => i.email === delivered.email)
      expect(sent).toMatchObject({ personId: delivered.personId, subject: `Invitation: ${event.name}`, status: "sent", attempts: 1 })
      expect(sent.sentAt).not.toBeNull()
      expect(sent.createdAt).not.toBeNull()
    }))

  it.effect("an Idempotency-Key replay answers the same and sends nothing twice", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const sink = yield* Sink
      sink.answer = () => "accept"
      const { event, guests } = yield* eventWithGuests(server, 2)
      const body = { personIds: guests.map((g) => g.personId) }
      const headers = { "idempotency-key": `invite-${event.eventId}` }
      const first = expectStatus(yield* invite(server, event.eventId, body, { headers }), 202)
      const again = expectStatus(yield* invite(server, event.eventId, body, { headers }), 202)
      expect(again.body).toEqual(first.body)
      expect(again.headers.get("idempotent-replayed")).toBe("true")
      yield* waitForEmails(sink, guests.map((g) => g.email))
      yield* outboxSettled(server)
      expect(emailsTo(sink, guests.map((g) => g.email))).toHaveLength(2)
      expect((yield* invitations(server, event.eventId)).total).toBe(2)
    }))

  it.effect("500 invitations in one request are queued in one transaction and all sent; a failure in the middle writes none", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const sink = yield* Sink
      sink.answer = () => "accept"
      const { event, guests } = yield* eventWithGuests(server, 500)
      const personIds = guests.map((g) => g.personId)
      const query = (text: string, pgText?: string) => Effect.promise(() => queryDatabase<Record<string, number>>(server.databaseEnv, text, [], pgText))
      const counts = Effect.map(
        query(`SELECT (SELECT count(*) FROM invitations) AS invitations, (SELECT count(*) FROM outbox_emails) AS emails,
                 (SELECT count(*) FROM outbox_deliveries) AS deliveries, (SELECT count(*) FROM invites) AS links`),
        (rows) => rows[0]!
      )
      // a failure after 250 emails were written: the request fails, and nothing of it stays
      const before = yield* counts
      const limit = before.emails! + 250
      yield* query(
        `CREATE TRIGGER fail_in_the_middle BEFORE INSERT ON outbox_emails
         WHEN (SELECT count(*) FROM outbox_emails) >= ${limit}
         BEGIN SELECT RAISE(ABORT, 'injected failure'); END`,
        `CREATE FUNCTION fail_in_the_middle() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN
           IF (SELECT count(*) FROM outbox_emails) >= ${limit} THEN RAISE EXCEPTION 'injected failure'; END IF;
           RETURN NEW;
         END $$;
         CREATE TRIGGER fail_in_the_middle BEFORE INSERT ON outbox_emails FOR EACH ROW EXECUTE FUNCTION fail_in_the_middle()`
      )
      expectError(yield* invite(server, event.eventId, { personIds }), 500, "internal")
      yield* query("DROP TRIGGER fail_in_the_middle", "DROP TRIGGER fail_in_the_middle ON outbox_emails; DROP FUNCTION fail_in_the_middle()")
      expect(yield* counts).toEqual(before)

      const started = Date.now()
      expect(expectStatus(yield* invite(server, event.eventId, { personIds }), 202).body).toEqual({ queued: 500, skipped: 0 })
      const took = Date.now() - started
      expect((yield* counts).invitations).toBe(before.invitations! + 500)
      const mails = yield* waitForEmails(sink, guests.map((g) => g.email), 60_000)
      expect(mails).toHaveLength(500)
      const log = yield* settle(server, event.eventId, (b) => b.total === 500 && b.invitations.every((i: any) => i.status === "sent"), 30_000)
      expect(log.total).toBe(500)
      console.info(`500 invitations: queued in ${took} ms (one request), all sent within ${Date.now() - started} ms`)
    }), 120_000)
})

layer(testServer(), { timeout: 60_000, excludeTestServices: true })("invitations without email configured", (it) => {
  it.effect("409 email_not_configured, and nothing queued; the log still reads", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const { event, guests } = yield* eventWithGuests(server, 1)
      const reply = expectError(yield* invite(server, event.eventId, { personIds: [guests[0]!.personId] }), 409, "email_not_configured")
      expect(reply.body.message).toMatch(/SMTP_URL/)
      expect(reply.body.message).toMatch(/MAIL_FROM/)
      expect((yield* invitations(server, event.eventId)).total).toBe(0)
      // validation still comes first
      expectError(yield* invite(server, event.eventId, {}), 400, "invalid_request")
    }))

  it.effect("/openapi.json documents both endpoints with every status, and the calendar download", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const doc = (yield* server.request("GET", "/openapi.json", { token: null })).body
      const post = doc.paths["/event/{id}/invitations"].post
      expect(post.summary).toBeTruthy()
      expect(Object.keys(post.responses).sort()).toEqual(expect.arrayContaining(["202", "400", "401", "403", "404", "409", "413", "429"]))
      expect(JSON.stringify(post.responses["409"])).toContain("#/components/schemas/EmailNotConfigured")
      expect(doc.components.schemas.EmailNotConfigured.properties.code.enum).toEqual(["email_not_configured"])
      expect(JSON.stringify(post.requestBody)).toContain("#/components/schemas/SendInvitations")
      expect(Object.keys(doc.components.schemas.SendInvitations.properties)).toEqual(["personIds", "statuses", "subject", "message"])
      expect(post.responses["202"].content["application/json"].schema.required).toEqual(["queued", "skipped"])
      expect(JSON.stringify(post.responses["429"])).toContain("#/components/schemas/RateLimited")
      const get = doc.paths["/event/{id}/invitations"].get
      expect(Object.keys(get.responses)).toEqual(expect.arrayContaining(["200", "400", "401", "403", "404", "429"]))
      const calendar = doc.paths["/event/{id}/calendar.ics"].get
      expect(Object.keys(calendar.responses["200"].content)).toEqual(["text/calendar"])
    }))
})

