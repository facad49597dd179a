/**
 * The change feed's guarantee under concurrent writers: a reader paging `GET /changes` as fast as
 * it can, while API clients, guests on the RSVP page and the admin CLI (another process) write,
 * sees every change exactly once, and each writer's changes in the order it made them.
 *
 * A property test: fast-check draws each writer's operations and the reader's page sizes. Every
 * writer keeps what its successful writes must have recorded; after the writers stop and the reader
 * has caught up, the feed holds exactly those changes (as a multiset: nothing skipped, nothing
 * repeated, nothing else), and every writer's changes appear in its own order. It uses nothing but
 * HTTP and the CLI, so it holds for whichever database the server runs on.
 */
import { expect, layer } from "@effect/vitest"
import { Effect, FastCheck as fc, Fiber, Ref } from "effect"
import { writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { cli } from "../support/Cli.js"
import { answerRsvp, createEvent, createPerson, expectStatus, uniqueEmail } from "../support/Fixtures.js"
import { TestServer, testServer, type TestServerShape } from "../support/TestServer.js"

type Entry = string
const entry = (type: string, action: string, id: string, eventId?: string): Entry => [type, action, id, eventId ?? ""].join(" ")

type Op = "create" | "update" | "archive" | "unarchive" | "bulk" | "add" | "status" | "remove" | "rename"
const op = fc.constantFrom<Op>("create", "update", "archive", "unarchive", "bulk", "add", "status", "remove", "rename")

interface Workload {
  /** One list of operations per API writer. */
  readonly writers: ReadonlyArray<ReadonlyArray<readonly [Op, number]>>
  /** RSVP answers: which invited guest answers, in turn. */
  readonly answers: ReadonlyArray<number>
  /** Rows of each CLI import. */
  readonly imports: ReadonlyArray<number>
  /** Page sizes the reader cycles through. */
  readonly pageSizes: ReadonlyArray<number>
}

const workload: fc.Arbitrary<Workload> = fc.record({
  writers: fc.array(fc.array(fc.tuple(op, fc.nat(1_000)), { minLength: 20, maxLength: 40 }), { minLength: 2, maxLength: 3 }),
  answers: fc.array(fc.nat(1_000), { minLength: 10, maxLength: 25 }),
  imports: fc.array(fc.integer({ min: 1, max: 300 }), { minLength: 1, maxLength: 2 }),
  pageSizes: fc.array(fc.integer({ min: 1, max: 60 }), { minLength: 1, maxLength: 5 })
})

/** One API writer: it owns the persons it creates, and shares the two events with the others. */
const apiWriter = (server: TestServerShape, token: string, events: ReadonlyArray<string>, ops: Workload["writers"][number], writer: number) =>
  Effect.gen(function*() {
    const made: Array<Entry> = []
    const active: Array<string> = []
    const archived: Array<string> = []
    const onList = events.map(() => new Map<string, "Accepted" | "Declined">())
    for (const [kind, n] of ops) {
      const pick = <A>(list: ReadonlyArray<A>) => list[n % list.length]!
      const event = n % events.length
      const listed = [...onList[event]!.keys()]
      const notListed = active.filter((p) => !onList[event]!.has(p))
      if (kind === "create" || active.length < 2) {
        const personId = yield* createPerson(server, {}, token)
        active.push(personId)
        made.push(entry("person", "created", personId))
      } else if (kind === "update") {
        const personId = pick(active)
        expectStatus(yield* server.request("PUT", `/person/${personId}`, { token, body: { personId, city: `City ${n}-${made.length}` } }), 200)
        made.push(entry("person", "updated", personId))
      } else if (kind === "bulk") {
        const [a, b] = [active[n % active.length]!, active[(n + 1) % active.length]!]
        const reply = expectStatus(
          yield* server.request("PUT", "/persons", {
            token,
            body: { persons: [{ personId: a, company: `Co ${made.length}` }, { personId: b, company: `Co ${made.length}b` }] }
          }),
          200
        )
        expect(reply.body.results.every((r: { success: boolean }) => r.success)).toBe(true)
        made.push(entry("person", "updated", a), entry("person", "updated", b))
      } else if (kind === "archive" && active.length > 2) {
        // a guest stays on its lists when archived; only persons not on a list are archived here
        const free = active.filter((p) => onList.every((list) => !list.has(p)))
        if (free.length === 0) continue
        const personId = pick(free)
        expectStatus(yield* server.request("DELETE", `/person/${personId}`, { token }), 200)
        active.splice(active.indexOf(personId), 1)
        archived.push(personId)
        made.push(entry("person", "archived", personId))
      } else if (kind === "unarchive" && archived.length > 0) {
        const personId = archived.shift()!
        expectStatus(yield* server.request("POST", `/person/${personId}/unarchive`, { token }), 200)
        active.push(personId)
        made.push(entry("person", "unarchived", personId))
      } else if (kind === "add" && notListed.length > 0) {
        const personId = pick(notListed)
        expectStatus(yield* server.request("POST", `/event/${events[event]}/guestlist`, { token, body: { guests: [{ personId }] } }), 200)
        onList[event]!.set(personId, "Declined")
        made.push(entry("guest", "created", personId, events[event]))
      } else if (kind === "status" && listed.length > 0) {
        const personId = pick(listed)
        const rsvpStatus = onList[event]!.get(personId) === "Accepted" ? "Declined" : "Accepted"
        expectStatus(yield* server.request("PUT", `/event/${events[event]}/guestlist`, { token, body: { guests: [{ personId, rsvpStatus }] } }), 200)
        onList[event]!.set(personId, rsvpStatus)
        made.push(entry("guest", "updated", personId, events[event]))
      } else if (kind === "remove" && listed.length > 0) {
        const personId = pick(listed)
        expectStatus(yield* server.request("DELETE", `/event/${events[event]}/guestlist`, { token, body: { guests: [{ personId }] } }), 200)
        onList[event]!.delete(personId)
        made.push(entry("guest", "removed", personId, events[event]))
      } else if (kind === "rename") {
        expectStatus(yield* server.request("PATCH", `/event/${events[event]}`, { token, body: { rsvpDescription: `Note of writer ${writer}, ${made.length}` } }), 200)
        made.push(entry("event", "updated", events[event]!))
      }
    }
    return made
  })

/** Guests answering on the RSVP page (a form post with its CSRF cookie), alternating their answer. */
const rsvpWriter = (server: TestServerShape, eventId: string, links: ReadonlyArray<{ personId: string; link: string }>, answers: ReadonlyArray<number>) =>
  Effect.gen(function*() {
    const made: Array<Entry> = []
    const last = new Map<string, string>()
    for (const n of answers) {
      const { link, personId } = links[n % links.length]!
      const rsvpStatus = last.get(personId) === "Accepted" ? "Declined" : "Accepted"
      const answered = yield* answerRsvp(server.url, link, rsvpStatus)
      expect(answered.status).toBe(303)
      last.set(personId, rsvpStatus)
      made.push(entry("guest", "updated", personId, eventId))
    }
    return made
  })

/** The admin CLI importing contacts from a file, in its own process: answers the emails it created. */
const cliWriter = (server: TestServerShape, slug: string, rows: number, label: string) =>
  Effect.gen(function*() {
    const emails = Array.from({ length: rows }, (_, i) => uniqueEmail(`${label}-${i}`))
    const file = join(tmpdir(), `convene-feed-${process.pid}-${label}.csv`)
    writeFileSync(file, ["email,firstName,lastName", ...emails.map((email, i) => `${email},Cli,Row ${i}`)].join("\n"))
    const run = yield* cli({ ...server.databaseEnv, LOG_LEVEL: "Error" }, "contacts", "import", "--org", slug, file)
    expect(run.stderr).toBe("")
    expect(run.stdout).toContain(`Imported ${rows} rows: ${rows} created`)
    expect(run.code).toBe(0)
    return emails
  })

layer(testServer(), { excludeTestServices: true })("change feed under concurrent writers", (it) => {
  it.effect("a reader paging as fast as it can sees every change exactly once, each writer's in its order", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      let round = 0
      yield* Effect.promise(() =>
        fc.assert(
          fc.asyncProperty(workload, (load) =>
            Effect.runPromise(Effect.gen(function*() {
              const slug = `feed-race-${++round}`
              const { token } = yield* server.organization(slug)
              // set-up: two events, one with a public page and guests invited to it
              const events = [
                (yield* createEvent(server, { primarySlug: `${slug}-${process.pid}` }, token)).eventId as string,
                (yield* createEvent(server, {}, token)).eventId as string
              ]
              const invited = yield* Effect.forEach(Array.from({ length: 4 }), () => createPerson(server, {}, token))
              expectStatus(
                yield* server.request("POST", `/event/${events[0]}/guestlist`, { token, body: { guests: invited.map((personId) => ({ personId })) } }),
                200
              )
              const links = expectStatus(
                yield* server.request("GET", `/event/${events[0]}/guestlist/search?personIds=${invited.join(",")}&generateRsvpLinks=true`, { token }),
                200
              ).body.guests.map((g: { personId: string; rsvpLink: string }) => ({ personId: g.personId, link: g.rsvpLink }))
              const start = expectStatus(yield* server.request("GET", "/changes?limit=1000", { token }), 200).body
              expect(start.hasMore).toBe(false)

              // the reader: pages from where set-up ended until the writers are done and it has caught up
              const done = yield* Ref.make(false)
              const reader = yield* Effect.gen(function*() {
                const seen: Array<{ readonly text: Entry; readonly cursor: string }> = []
                let after = start.nextCursor as string
                for (let page = 0;; page++) {
                  const finished = yield* Ref.get(done)
                  const limit = load.pageSizes[page % load.pageSizes.length]!
                  const reply = expectStatus(yield* server.request("GET", `/changes?after=${after}&limit=${limit}`, { token }), 200).body
                  expect(reply.changes.length).toBeLessThanOrEqual(limit)
                  for (const c of reply.changes) seen.push({ text: entry(c.type, c.action, c.id, c.eventId), cursor: c.cursor })
                  after = reply.nextCursor
                  if (finished && !reply.hasMore) return seen
                }
              }).pipe(Effect.fork)

              const writers = yield* Effect.all(
                [
                  ...load.writers.map((ops, writer) => apiWriter(server, token, events, ops, writer)),
                  rsvpWriter(server, events[0]!, links, load.answers),
                  ...load.imports.map((rows, i) => Effect.map(cliWriter(server, slug, rows, `${slug}-cli${i}`), () => [] as Array<Entry>))
                ],
                { concurrency: "unbounded" }
              )
              yield* Ref.set(done, true)
              const seen = yield* Fiber.join(reader)

              // every cursor is new: nothing was handed out twice
              expect(new Set(seen.map((s) => s.cursor)).size).toBe(seen.length)
              // the CLI's persons: created once each, known by their emails
              const cliCreated = seen.filter((s) => s.text.startsWith("person created ") && !writers.some((w) => w.includes(s.text)))
              const cliIds = cliCreated.map((s) => s.text.split(" ")[2]!)
              const cliEmails = new Set<string>()
              for (let i = 0; i < cliIds.length; i += 100) {
                const found = expectStatus(yield* server.request("GET", `/person?ids=${cliIds.slice(i, i + 100).join(",")}`, { token }), 200).body
                for (const p of found.persons) cliEmails.add(p.email)
              }
              expect(cliEmails.size).toBe(load.imports.reduce((a, b) => a + b, 0))
              for (const email of cliEmails) expect(email).toMatch(new RegExp(`^${slug}-cli\\d+-\\d+\\.`))
              // exactly the changes the writers made, each once
              const expected = [...writers.flat(), ...cliCreated.map((s) => s.text)].sort()
              const got = seen.map((s) => s.text).sort()
              const missing = expected.filter((e) => !got.includes(e))
              expect(got, `missing ${JSON.stringify(missing)}`).toEqual(expected)
              // and each writer's changes in the order it made them (an event's updates come from every
              // writer alike, so they are left to the count above)
              const position = new Map<Entry, Array<number>>()
              seen.forEach((s, i) => position.set(s.text, [...(position.get(s.text) ?? []), i]))
              for (const made of writers) {
                const used = new Map<Entry, number>()
                let previous = -1
                for (const text of made.filter((t) => !t.startsWith("event "))) {
                  const k = used.get(text) ?? 0
                  used.set(text, k + 1)
                  const at = position.get(text)![k]!
                  expect(at).toBeGreaterThan(previous)
                  previous = at
                }
              }
            }))
          ),
          { numRuns: 3, endOnFailure: true }
        )
      )
    }), 240_000)
})
