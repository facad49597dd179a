/**
 * Invitations by email, queued in the database, on the suite's engine (the API's proof:
 * test/api/invitations.test.ts, test/api/email-quota.test.ts): sending queues one email per guest
 * with its outbox delivery and the guest's RSVP link, in one transaction; the daily quota is
 * counted in the same transaction, so requests at once never go past it together; a guest invited
 * in the last ten minutes is skipped and counted; the log lists what was queued.
 */
import { expect, layer } from "@effect/vitest"
import { Effect, Schema } from "effect"
import type { Caller } from "../../src/Domain/Caller.js"
import { CreateEvent } from "../../src/Events/Domain.js"
import { Events } from "../../src/Events/Events.js"
import { NewGuest } from "../../src/Guests/Domain.js"
import { GuestLists } from "../../src/Guests/GuestLists.js"
import { SendInvitations } from "../../src/Invitations/Domain.js"
import { EventInvitations } from "../../src/Invitations/Invitations.js"
import { TestDatabase, testDatabase } from "../support/Database.js"

/** An event with a public page and `count` new guests; their person ids. */
const eventWithGuests = (caller: Caller, slug: string, count: number) =>
  Effect.gen(function*() {
    const event = yield* (yield* Events).create(caller, Schema.decodeUnknownSync(CreateEvent)({
      name: "Dîner «été»",
      primaryDate: "2031-06-01T20:00:00+02:00",
      primarySlug: slug,
      timezone: "Europe/Paris"
    }))
    const guests = Array.from({ length: count }, (_, i) => ({ firstName: `G${i}`, lastName: "Guest", email: `g${i}@${slug}.test` }))
    const added = yield* (yield* GuestLists).add(caller, event.eventId, guests.map((g) => Schema.decodeUnknownSync(NewGuest)(g)))
    return { eventId: event.eventId, personIds: added.guests.map((g) => g.personId) }
  })

const send = (caller: Caller, eventId: string, body: Record<string, unknown>) =>
  Effect.flatMap(EventInvitations, (invitations) => invitations.send(caller, eventId, Schema.decodeUnknownSync(SendInvitations)(body)))

const env = { SMTP_URL: "smtp://127.0.0.1:9", MAIL_FROM: "Acme Events <events@acme.test>", EMAIL_DAILY_LIMIT: "5" }

layer(testDatabase(env), { excludeTestServices: true, timeout: 60_000 })("email invitations over the database", (it) => {
  it.effect("one email per guest, its delivery and the guest's RSVP link, in one transaction; a guest invited lately is skipped", () =>
    Effect.gen(function*() {
      const db = yield* TestDatabase
      const { caller } = yield* db.organization("mail-one")
      const { eventId, personIds } = yield* eventWithGuests(caller, "mail-one-dinner", 3)
      expect(yield* send(caller, eventId, { personIds: personIds.slice(0, 2), subject: "Venez «dîner» 😀" })).toEqual({ queued: 2, skipped: 0 })
      const emails = yield* db.query<{ recipient: string; subject: string; attachments: string }>(
        "SELECT e.recipient, e.subject, e.attachments FROM outbox_emails e JOIN outbox_deliveries d ON d.id = e.delivery_id WHERE d.organization_id = ? ORDER BY e.delivery_id",
        [caller.organizationId]
      )
      expect(emails.map((e) => [e.recipient, e.subject])).toEqual([["g0@mail-one-dinner.test", "Venez «dîner» 😀"], ["g1@mail-one-dinner.test", "Venez «dîner» 😀"]])
      expect(JSON.parse(emails[0]!.attachments)[0]).toMatchObject({ filename: "invitation.ics" })
      const deliveries = yield* db.query<{ channel: string; status: string }>("SELECT channel, status FROM outbox_deliveries WHERE organization_id = ?", [caller.organizationId])
      expect(deliveries).toEqual([{ channel: "email", status: "pending" }, { channel: "email", status: "pending" }])
      // the guests invited got their RSVP link
      const links = yield* (yield* GuestLists).search(caller, eventId, { personIds: personIds.join(",") })
      expect(links.guests.filter((g) => g.rsvpLink !== null).map((g) => g.personId).sort()).toEqual(personIds.slice(0, 2).sort())
      // again, with everyone: the two invited in the last ten minutes are skipped and counted
      expect(yield* send(caller, eventId, { statuses: ["Invited"] })).toEqual({ queued: 1, skipped: 2 })
      const log = yield* (yield* EventInvitations).list(caller, eventId, {})
      expect(log.total).toBe(3)
    }))

  it.effect("requests at once never go past the daily quota together: the count and the emails are one write transaction", () =>
    Effect.gen(function*() {
      const db = yield* TestDatabase
      const { caller } = yield* db.organization("mail-quota")
      const { eventId, personIds } = yield* eventWithGuests(caller, "mail-quota-dinner", 9)
      // three requests of three emails each, against a quota of five: exactly one goes
      const outcomes = yield* Effect.forEach(
        [0, 3, 6],
        (from) => Effect.either(send(caller, eventId, { personIds: personIds.slice(from, from + 3) })),
        { concurrency: "unbounded" }
      )
      expect(outcomes.map((o) => (o._tag === "Left" ? o.left._tag : "queued")).sort()).toEqual(["RateLimited", "RateLimited", "queued"])
      const [queued] = yield* db.query<{ n: number }>("SELECT count(*) AS n FROM outbox_deliveries WHERE organization_id = ?", [caller.organizationId])
      expect(Number(queued!.n)).toBe(3)
      // two more fit; a third does not, and says when one will
      const rest = personIds.filter((_, i) => outcomes[Math.floor(i / 3)]!._tag === "Left")
      expect(yield* send(caller, eventId, { personIds: rest.slice(0, 2) })).toEqual({ queued: 2, skipped: 0 })
      const refused = yield* Effect.flip(send(caller, eventId, { personIds: rest.slice(2, 3) }))
      expect(refused._tag).toBe("RateLimited")
      if (refused._tag === "RateLimited") expect(refused.retryAfter).toBeGreaterThan(23 * 3600)
    }))
})
