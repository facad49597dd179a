/**
 * The guest list's JSON, written by the database (src/Guests/GuestJson.ts), is what the value
 * renderer gives (GuestView.ts `renderGuest`, the one the other answers and the webhooks use) once
 * encoded: the same keys in the same order and the same values, on the suite's engine, for
 * generated rows of every shape (names that need escaping, phones with and without consent, stored
 * arrays and objects, histories, RSVP links, every role, ticketed events with and without payments).
 */
import { expect, layer } from "@effect/vitest"
import { Arbitrary, Effect, FastCheck as fc } from "effect"
import { jsonObjectsSql, jsonQuoteSql } from "../../src/Db/Dialect.js"
import type { EventRow } from "../../src/Events/EventRow.js"
import { guestJsonSql, paymentTail, rsvpLinkOpen, sharedTail } from "../../src/Guests/GuestJson.js"
import type { GuestRow } from "../../src/Guests/GuestsRepo.js"
import { renderGuest } from "../../src/Guests/GuestView.js"
import { Payment, PaymentStatus } from "../../src/Payments/Domain.js"
import { type GuestPaymentFields, noPurchase } from "../../src/Payments/GuestPayments.js"
import type { Role } from "../../src/Domain/Role.js"
import { PersonRowId } from "../../src/Domain/RowIds.js"
import { onPostgres, queryDatabase, withDatabase } from "../support/Engine.js"
import { TestDatabase, testDatabase } from "../support/Database.js"

// text that JSON must escape, and text that it must not touch
// (whole characters: the database holds UTF-8, which has no lone surrogates)
const text = fc.oneof(
  fc.string(),
  fc.string({ unit: "grapheme", maxLength: 12 }),
  fc.constantFrom("\u0000\u0001\u001f\u007f\b\f", "a\rb", "\u00e9\u0301", "</script>"),
  fc.constantFrom("O'Brien", "Zoë \"Z\" <b>", "line\nbreak\ttab", "\u2028\u2029", "back\\slash", "李小龍", "😀", "")
// PostgreSQL's text holds no NUL: the service writes U+FFFD there instead (src/Db/Postgres.ts)
).map((value) => onPostgres ? value.replaceAll("\u0000", "\uFFFD") : value)
const nullable = <A>(arbitrary: fc.Arbitrary<A>) => fc.option(arbitrary, { nil: null })

// as stored: each entry with its action type, which the webhook records carry and the API does not show
const historyEntry = fc.record({
  status: text,
  actorId: text,
  actorType: fc.constantFrom("user", "apiKey", "guest"),
  actionType: fc.constantFrom("added", "updated"),
  createdAt: text
})
const columnValue = fc.oneof(text, fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean())

const row: fc.Arbitrary<GuestRow> = fc.record({
  gid: fc.nat(),
  person_id: fc.integer({ min: 1, max: 5 }),
  public_id: fc.uuid(),
  first_name: text,
  last_name: text,
  email: text,
  company: nullable(text),
  position: nullable(text),
  rsvp_status: fc.constantFrom("Invited", "Accepted", "Declined", "Maybe", "Waitlisted"),
  attendance_status: fc.constantFrom(null, "Attended", "No Show"),
  dietary_restrictions: nullable(fc.array(text).map((list) => JSON.stringify(list))),
  rsvp_note: nullable(text),
  custom_columns: nullable(fc.dictionary(text, columnValue).map((record) => JSON.stringify(record))),
  rsvp_question_responses: fc.array(fc.record({ title: text, description: nullable(text), answers: fc.array(text) }))
    .map((list) => JSON.stringify(list)),
  phone: nullable(text),
  consent: fc.constantFrom(null, "granted", "revoked", "none"),
  consent_source: nullable(text),
  token: nullable(fc.stringMatching(/^[A-Za-z0-9_-]{8,32}$/)),
  removed_at: fc.constant(null),
  history: fc.array(historyEntry, { maxLength: 4 }).map((list) => JSON.stringify(list))
}) as fc.Arbitrary<GuestRow>

/** The same row as the list's query gives it: the history in the API's shape (GuestsRepo's `ofEvent`). */
const asListed = (guest: GuestRow): GuestRow => ({
  ...guest,
  history: JSON.stringify(
    (JSON.parse(guest.history) as Array<Record<string, string>>).map(({ actorId, actorType, createdAt, status }) => ({ status, actorId, actorType, createdAt }))
  )
})

const payment: fc.Arbitrary<GuestPaymentFields> = fc.record({
  paymentStatus: Arbitrary.make(PaymentStatus),
  paymentAmount: fc.nat(),
  donationAmount: nullable(fc.nat()),
  payments: fc.array(Arbitrary.make(Payment), { maxLength: 2 })
})

const options = fc.record({
  role: fc.constantFrom<Role>("Viewer", "Team Member", "Admin", "Super Admin"),
  slug: nullable(fc.constantFrom("gala", "spring picnic", "été", "o'brien \"q\"")),
  ticketing: fc.boolean(),
  payments: fc.option(fc.array(fc.tuple(fc.integer({ min: 1, max: 5 }).map(PersonRowId), payment)), { nil: undefined })
}).map(({ payments, role, slug, ticketing }) => ({
  role,
  event: { slug, ticketing_enabled: ticketing ? 1 : 0 } as EventRow,
  rsvpLink: (s: string | null, token: string | null) => {
    const prefix = linkPrefix(s)
    return prefix === null || token === null ? null : prefix + token
  },
  payments: payments === undefined ? undefined : new Map(payments)
}))

/** PublicOrigin's `rsvpLinkPrefix` for a server at this address. */
const linkPrefix = (slug: string | null) => slug === null ? null : `https://events.example.org/rsvp/${encodeURIComponent(slug)}?invite=`

/** The list's tables (`guestJsonSql`'s aliases) as one row of given values; `?` are text parameters. */
const param = "CAST(? AS text)"
const tables = `FROM (SELECT ${param} AS public_id, ${param} AS first_name, ${param} AS last_name, ${param} AS email) p,
  (SELECT ${param} AS number) ph, (SELECT ${param} AS consent, ${param} AS source) c,
  (SELECT ${param} AS rsvp_status, ${param} AS dietary_restrictions, ${param} AS attendance_status,
          ${param} AS rsvp_question_responses, ${param} AS rsvp_note, ${param} AS custom_columns) g,
  (SELECT ${param} AS token) i, (SELECT ${param} AS link_open, ${param} AS tail) o, (SELECT ${param} AS history) h`
const guestSql = `SELECT ${guestJsonSql(jsonQuoteSql[onPostgres ? "pg" : "sqlite"], "h.history")} AS json ${tables}`

layer(testDatabase(), { excludeTestServices: true })("guest list JSON", (it) => {
  it.effect("written by the database, is JSON.stringify of renderGuest's value: same keys, same order, same values", () =>
    Effect.gen(function*() {
      const server = yield* TestDatabase
      const cases = fc.sample(fc.tuple(row, options), { numRuns: 400, seed: 18 })
      const written = yield* Effect.promise(() =>
        withDatabase(server.databaseEnv, async (query) => {
          const texts: Array<string> = []
          for (const [guest, renderOptions] of cases) {
            const listed = asListed(guest)
            const tail = sharedTail(renderOptions.role, renderOptions.event.ticketing_enabled === 1)
            const [found] = await query<{ json: string }>(guestSql, [
              listed.public_id, listed.first_name, listed.last_name, listed.email, listed.phone, listed.consent, listed.consent_source,
              listed.rsvp_status, listed.dietary_restrictions, listed.attendance_status, listed.rsvp_question_responses,
              listed.rsvp_note, listed.custom_columns, listed.token, rsvpLinkOpen(linkPrefix(renderOptions.event.slug)), tail ?? "",
              listed.history
            ])
            // as GuestLists' list ends each guest: its own payments on a ticketed event, for who sees them
            texts.push(found!.json + (tail === undefined ? paymentTail(renderOptions.payments?.get(guest.person_id) ?? noPurchase) : ""))
          }
          return texts
        }))
      cases.forEach(([guest, renderOptions], n) => expect(written[n]).toBe(JSON.stringify(renderGuest(guest, renderOptions))))
    }), 60_000)
})

// The histories and option lists the repositories aggregate in SQL are spliced into the answers as
// they come: each engine must write them as JSON.stringify does (PostgreSQL's json_agg and
// json_build_object put spaces after colons and commas).
layer(testDatabase(), { excludeTestServices: true })("JSON aggregated in SQL", (it) => {
  it.effect("is JSON.stringify's text on this engine: escapes, unicode, numbers, nulls, order, and [] for no rows", () =>
    Effect.gen(function*() {
      const server = yield* TestDatabase
      const strings = ["He said \"hi\" \\ </script>", "line\nbreak\ttab\u0001\u001f\u007f", "Zoë 李小龍 😀 \u2028\u2029", ""]
      const json = jsonObjectsSql[onPostgres ? "pg" : "sqlite"]([["text", "h.a"], ["number", "h.n"]], "h.id DESC")
      const param = onPostgres ? "?::text" : "?"
      const rows = strings.map((_, i) => `SELECT ${i + 1} AS id, ${param} AS a, ${i % 2 === 0 ? i * 7 - 3 : "NULL"} AS n`)
      const from = `(${rows.join(" UNION ALL ")} UNION ALL SELECT 9, NULL, 12345678901) h`
      const [filled] = yield* Effect.promise(() => queryDatabase<{ j: string }>(server.databaseEnv, `SELECT ${json} AS j FROM ${from}`, strings))
      const expected = [
        { text: null, number: 12345678901 },
        ...strings.map((a, i) => ({ text: a, number: i % 2 === 0 ? i * 7 - 3 : null })).reverse()
      ]
      expect(filled!.j).toBe(JSON.stringify(expected))
      const [empty] = yield* Effect.promise(() => queryDatabase<{ j: string }>(server.databaseEnv, `SELECT ${json} AS j FROM ${from} WHERE h.id < 0`, strings))
      expect(empty!.j).toBe("[]")
    }))
})
