/**
 * Reminders (CONTRACT §17): at each of an event's reminder offsets before its start, every guest
 * then `Accepted` (on the list, with an email) gets one reminder email through the outbox.
 * ReminderRule.ts says when one is due; this is the pass that sends what is due, run by a fiber of
 * the server's scope (`RemindersLive`) every `REMINDER_PAUSE`, its time from `Clock`.
 *
 * At most once per guest and offset, across restarts and instances: the mark in `reminders_sent`
 * (unique per event, person and offset) is inserted in the transaction that queues the email; a
 * mark already there (another pass, another instance, before a restart) sends nothing. A pass
 * does bounded work (`PER_PASS` guests at most, `BATCH` per transaction) and the next one goes on.
 * A batch takes no more guests than the organization's daily email quota has left; past the quota
 * nothing is marked or sent, and the next passes try again while the event has not started. Without email
 * configured, nothing is marked or sent.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Clock from "effect/Clock"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type { EventRowId, GuestRowId } from "../Domain/RowIds.js"
import { EmailQuota } from "../Email/EmailQuota.js"
import { Events } from "../Events/Events.js"
import { GuestInvites } from "../Guests/GuestInvites.js"
import { TicketCodes } from "../Guests/TicketCodes.js"
import { PublicOrigin } from "../Runtime/PublicOrigin.js"
import { repeatedly } from "../Runtime/Background.js"
import { GuestMail, type GuestEmailOf } from "./GuestMail.js"
import { reminderWords } from "./ReminderEmail.js"
import { dueAt, type DueReminders, offsetsOf } from "./ReminderRule.js"
import { RemindersRepo, type UpcomingRow } from "./RemindersRepo.js"

/** The pause between two passes: a reminder goes out at most this long after it is due (while an instance runs). */
export const REMINDER_PAUSE = Duration.seconds(30)
/** Guests one pass reminds at most (the next pass goes on). */
export const PER_PASS = 500
/** Guests reminded in one transaction at most: the write lock is held briefly. */
export const BATCH = 50
/** Events read at once. */
const EVENTS_PAGE = 200

/** The quota refused a batch: its transaction is rolled back. */
class QuotaReached extends Data.TaggedError("QuotaReached")<{}> {}

export class Reminders extends Effect.Service<Reminders>()("Convene/Reminders", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* RemindersRepo
    const events = yield* Events
    const invites = yield* GuestInvites
    const tickets = yield* TicketCodes
    const mail = yield* GuestMail
    const origin = yield* PublicOrigin
    const quota = yield* EmailQuota

    /**
     * One transaction: up to `limit` guests of the event not reminded at the nearest due offset,
     * marked and emailed. Answers how many it found, and how many of those it marked (none: another
     * pass has them).
     */
    const remindBatch = (eventId: EventRowId, due: DueReminders, limit: number) =>
      Effect.gen(function*() {
        const found = yield* events.byRowId(eventId)
        if (Option.isNone(found)) return { found: 0, marked: 0 }
        const event = found.value
        // as many as the organization's daily quota still allows (read in this write transaction)
        const allowed = (yield* quota.state(event.organization_id)).left
        if (allowed === 0) return yield* new QuotaReached()
        const guests = yield* repo.unreminded(event.id, due.nearest, Math.min(limit, allowed))
        if (guests.length === 0) return { found: 0, marked: 0 }
        const now = yield* Clock.currentTimeMillis
        const at = new Date(now).toISOString()
        const winners: Array<(typeof guests)[number]> = []
        for (const guest of guests) {
          // the constraint decides: only the pass whose mark goes in sends the email
          if (yield* repo.mark(event.id, guest.person_id, due.nearest, at)) winners.push(guest)
          for (const offset of due.offsets) if (offset !== due.nearest) yield* repo.mark(event.id, guest.person_id, offset, at)
        }
        const tokens = event.slug === null || winners.length === 0 ? new Map<GuestRowId, string>() : yield* invites.ensureInviteTokens(event.organization_id, event, winners)
        const left = Math.max(0, Math.round((Date.parse(event.primary_date_utc) - now) / 1000))
        const emails: Array<GuestEmailOf> = []
        for (const guest of winners) {
          emails.push({
            ...reminderWords(event.name, left),
            event,
            to: guest.email,
            firstName: guest.first_name,
            rsvpLink: origin.rsvpLink(event.slug, tokens.get(guest.gid) ?? null),
            ticketCode: yield* tickets.issue(guest.gid)
          })
        }
        if (!(yield* mail.queue(event, emails))) return yield* new QuotaReached()
        return { found: guests.length, marked: winners.length }
      }).pipe(sql.withTransaction)

    /** The due reminders of one event, in batches, up to `budget` guests; answers the guests it found. */
    const remindEvent = (eventId: EventRowId, due: DueReminders, budget: number) =>
      Effect.gen(function*() {
        let done = 0
        while (done < budget) {
          const batch = yield* remindBatch(eventId, due, Math.min(BATCH, budget - done))
          done += batch.found
          if (batch.found === 0 || batch.marked === 0) break
        }
        return done
      }).pipe(Effect.catchTag("QuotaReached", () =>
        Effect.as(Effect.logWarning(`reminders of event ${eventId} wait: the organization's daily email quota is reached`), 0)))

    /** One pass: every event with reminders due now, `PER_PASS` guests at most. Answers the guests it reminded or found reminded. */
    const pass = Effect.gen(function*() {
      if (!mail.configured) return 0
      const now = yield* Clock.currentTimeMillis
      const nowIso = new Date(now).toISOString()
      let budget = PER_PASS
      let after: { readonly start: string; readonly id: number } | undefined = undefined
      for (;;) {
        const page: ReadonlyArray<UpcomingRow> = yield* repo.upcoming(nowIso, after, EVENTS_PAGE)
        for (const row of page) {
          const due = dueAt(Date.parse(row.primary_date_utc), offsetsOf(row.reminders), now)
          if (due === undefined) continue
          budget -= yield* remindEvent(row.id, due, budget)
          if (budget <= 0) return PER_PASS
        }
        if (page.length < EVENTS_PAGE) return PER_PASS - budget
        const last = page[page.length - 1]!
        after = { start: last.primary_date_utc, id: last.id }
      }
    })

    return { pass } as const
  }),
  dependencies: [
    RemindersRepo.Default,
    Events.Default,
    GuestInvites.Default,
    TicketCodes.Default,
    GuestMail.Default,
    PublicOrigin.Default,
    EmailQuota.Default
  ]
}) {}

/** The reminders' fiber in the server's scope: a pass now and every `pause` (src/Runtime/Background.ts: a failed pass is logged, the next one runs). */
export const remindersLive = (pause: Duration.DurationInput = REMINDER_PAUSE) =>
  Layer.scopedDiscard(Effect.gen(function*() {
    const reminders = yield* Reminders
    const pass = reminders.pass.pipe(Effect.tap((n) => n === 0 ? Effect.void : Effect.logDebug(`reminders: ${n} guests reminded`)))
    yield* repeatedly("reminders", pass, pause)
  }))

export const RemindersLive = remindersLive().pipe(Layer.provide(Reminders.Default))
