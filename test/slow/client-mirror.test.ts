/**
 * The mirror example (examples/mirror.ts), on the typed client: it keeps an exact copy of an
 * organization's persons and guests through the change feed while concurrent writers change them,
 * from its first load on (as its own process, as a user runs it), after a restart from its file,
 * and after its cursor expired. (Moved from test/api/client.test.ts: it needs a real port.)
 */
import { expect, layer } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type Mirror, readMirror, runMirror } from "../../examples/mirror.js"
import type { Guest, Person } from "../../src/Client/index.js"
import { createEvent, createPerson, expectStatus, uniqueEmail } from "../support/Fixtures.js"
import { TestServer, type TestServerShape, liveServer } from "../support/TestServer.js"

const futureDate = "2031-06-01T20:00:00+02:00"

const temporaryFile = (name: string) =>
  Effect.acquireRelease(
    Effect.sync(() => mkdtempSync(join(tmpdir(), "convene-client-"))),
    (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
  ).pipe(Effect.map((dir) => join(dir, name)))

// ---------------------------------------------------------------------------------------------
// The mirror example
// ---------------------------------------------------------------------------------------------

/** The organization's persons and guests as the API answers them now, in the mirror's shape. */
const apiState = (server: TestServerShape, token: string, personIds: Iterable<string>, eventIds: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const ids = [...new Set(personIds)]
    const persons: Record<string, Person> = {}
    for (let i = 0; i < ids.length; i += 100) {
      const reply = expectStatus(yield* server.request("GET", `/person?ids=${ids.slice(i, i + 100).join(",")}`, { token }), 200)
      for (const person of reply.body.persons as Array<Person>) persons[person.personId] = person
    }
    const active: Array<string> = []
    for (let skip = 0; ; skip += 100) {
      const page = expectStatus(yield* server.request("GET", `/person?limit=100&skip=${skip}`, { token }), 200).body.persons
      active.push(...page.map((p: Person) => p.personId))
      if (page.length < 100) break
    }
    const guests: Record<string, Record<string, Guest>> = {}
    for (const eventId of eventIds) {
      const reply = expectStatus(yield* server.request("GET", `/event/${eventId}/guestlist`, { token }), 200)
      guests[eventId] = Object.fromEntries((reply.body.guests as Array<Guest>).map((g) => [g.personId, g]))
    }
    return { persons, active, guests }
  })

/** The mirror equals the API's state exactly: every person (archived ones included, deleted ones absent) and every guest. */
const expectMirrorEquals = (mirror: Mirror, state: Effect.Effect.Success<ReturnType<typeof apiState>>) => {
  expect(mirror.cursor).toEqual(expect.any(String))
  expect(Object.keys(mirror.persons).sort()).toEqual(Object.keys(state.persons).sort())
  expect(mirror.persons).toEqual(state.persons)
  expect(Object.values(mirror.persons).filter((p) => !p.archived).map((p) => p.personId).sort()).toEqual([...state.active].sort())
  expect(Object.keys(mirror.guests).sort()).toEqual(Object.keys(state.guests).sort())
  for (const eventId of Object.keys(state.guests)) {
    expect(Object.keys(mirror.guests[eventId]!).sort(), `guests of ${eventId}`).toEqual(Object.keys(state.guests[eventId]!).sort())
    expect(mirror.guests[eventId], `guests of ${eventId}`).toEqual(state.guests[eventId])
  }
}

/** A small deterministic random source per writer. */
const random = (seed: number) => {
  let state = seed >>> 0
  return (n: number) => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0
    return state % n
  }
}

interface Load {
  readonly personIds: Set<string>
  readonly counts: Record<string, number>
}

/**
 * Concurrent writers, one organization, until `until()` says so: create, update (names, phones), archive
 * (DELETE /person/:id), unarchive persons; add, update (RSVP, attendance, notes) and remove guests
 * of two events. Refusals that races between writers make legitimate (400 for a guest another writer
 * removed, 409) are counted; anything else fails the test.
 */
const runWriters = (server: TestServerShape, token: string, eventIds: ReadonlyArray<string>, load: Load, writers: number, until: () => boolean) => {
  const count = (kind: string) => (load.counts[kind] = (load.counts[kind] ?? 0) + 1)
  const writer = (index: number) =>
    Effect.gen(function*() {
      const pick = random(index * 7919 + 17)
      const anyPerson = () => {
        const ids = [...load.personIds]
        return ids[pick(ids.length)]!
      }
      while (!until()) {
        const eventId = eventIds[pick(eventIds.length)]!
        const operation = pick(10)
        let reply
        let kind: string
        if (operation === 0 || load.personIds.size < 10) {
          kind = "person created"
          reply = yield* server.request("POST", "/person", {
            token,
            body: { firstName: `W${index}`, lastName: `P${pick(1000)}`, email: uniqueEmail(`w${index}`) }
          })
          if (reply.status === 201) load.personIds.add(reply.body.personId)
        } else if (operation === 1) {
          kind = "person updated"
          const id = anyPerson()
          reply = yield* server.request("PUT", `/person/${id}`, {
            token,
            body: { personId: id, lastName: `L${pick(1000)}`, phoneNumber: `+1 555 ${1000 + pick(9000)}` }
          })
        } else if (operation === 2) {
          kind = "person archived"
          reply = yield* server.request("DELETE", `/person/${anyPerson()}`, { token })
        } else if (operation === 3) {
          kind = "person unarchived"
          reply = yield* server.request("POST", `/person/${anyPerson()}/unarchive`, { token })
        } else if (operation <= 5) {
          kind = "guests added"
          reply = yield* server.request("POST", `/event/${eventId}/guestlist`, {
            token,
            body: { guests: [{ personId: anyPerson() }, { personId: anyPerson() }] }
          })
        } else if (operation <= 7) {
          kind = "guests updated"
          const statuses = ["Accepted", "Declined", "Maybe", "Invited"]
          reply = yield* server.request("PUT", `/event/${eventId}/guestlist`, {
            token,
            body: {
              guests: [{
                personId: anyPerson(),
                rsvpStatus: statuses[pick(4)],
                attendanceStatus: pick(3) === 0 ? "Attended" : null,
                rsvpNote: `note ${pick(100)}`
              }]
            }
          })
        } else {
          kind = "guests removed"
          reply = yield* server.request("DELETE", `/event/${eventId}/guestlist`, {
            token,
            body: { guests: [{ personId: anyPerson() }] }
          })
        }
        if (reply.status < 300) count(kind)
        else if (reply.status === 400 || reply.status === 409) count(`${kind}: refused`)
        else expect.fail(`${kind}: ${reply.status} ${reply.text}`)
      }
    })
  return Effect.forEach(Array.from({ length: writers }, (_, i) => i), writer, { concurrency: "unbounded", discard: true })
}

/** Runs `examples/mirror.ts --once` as its own process, as a user would. */
const runMirrorCli = (url: string, token: string, file: string) =>
  Effect.async<{ code: number | null; stderr: string }>((resume) => {
    const child = spawn(process.execPath, ["--import", "tsx", "examples/mirror.ts", "--once", file], {
      env: { ...process.env, CONVENE_URL: url, CONVENE_TOKEN: token },
      stdio: ["ignore", "ignore", "pipe"]
    })
    let stderr = ""
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
    child.on("close", (code) => resume(Effect.succeed({ code, stderr })))
    return Effect.sync(() => child.kill("SIGKILL"))
  })

layer(liveServer(), { excludeTestServices: true })("the mirror example", (it) => {
  it.scoped("follows a live organization under concurrent writes and ends equal to the API, deletes included", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const { token } = yield* server.organization("mirror-live")
      const file = yield* temporaryFile("mirror.json")
      const events = [
        (yield* createEvent(server, { name: "Mirror gala", primaryDate: futureDate }, token)).eventId as string,
        (yield* createEvent(server, { name: "Mirror picnic", primaryDate: "2031-07-01T12:00:00+02:00" }, token)).eventId as string
      ]
      const load: Load = { personIds: new Set(), counts: {} }
      // a few persons and guests exist before the mirror's first load
      for (let i = 0; i < 12; i++) load.personIds.add(yield* createPerson(server, { firstName: `Seed${i}` }, token))
      const seeded = [...load.personIds]
      expectStatus(
        yield* server.request("POST", `/event/${events[0]}/guestlist`, { token, body: { guests: seeded.slice(0, 8).map((personId) => ({ personId })) } }),
        200
      )
      expectStatus(
        yield* server.request("POST", `/event/${events[1]}/guestlist`, { token, body: { guests: seeded.slice(4).map((personId) => ({ personId })) } }),
        200
      )

      const started = Date.now()
      const lines: Array<{ at: number; line: string }> = []
      // the writers go on for 5 seconds, and until the mirror has loaded and applied two pages of
      // the feed while they write, however slow a busy machine makes it (at most 40 seconds)
      const applying = () => lines.filter((l) => l.line.startsWith("applied ")).length > 1
      const loadEnds = () => (Date.now() > started + 5_000 && applying()) || Date.now() > started + 40_000
      const writers = yield* Effect.fork(runWriters(server, token, events, load, 6, loadEnds))

      // the mirror starts from nothing while the writers run
      yield* Effect.sleep("300 millis")
      const caughtUp: Array<{ cursor: string; requestedAt: number }> = []
      const controller = new AbortController()
      const mirrorRun = yield* Effect.fork(Effect.promise(() =>
        runMirror({
          baseUrl: server.url,
          token,
          file,
          pollInterval: 50,
          pageSize: 40,
          signal: controller.signal,
          log: (line) => lines.push({ at: Date.now(), line }),
          onCaughtUp: (info) => caughtUp.push(info)
        })
      ))

      yield* Fiber.join(writers)
      // one removal and one archive after the random load, so the final state surely holds both and
      // the mirror must apply them live: a seeded guest it loaded, and a seeded person
      const removal = yield* server.request("DELETE", `/event/${events[0]}/guestlist`, { token, body: { guests: [{ personId: seeded[0] }] } })
      expect([200, 400]).toContain(removal.status)
      expect([200, 204]).toContain((yield* server.request("DELETE", `/person/${seeded[1]}`, { token })).status)
      const ended = Date.now()
      // the mirror caught up with a page asked for after the last write
      const deadline = Date.now() + 20_000
      while (!caughtUp.some((c) => c.requestedAt > ended) && Date.now() < deadline) yield* Effect.sleep("50 millis")
      controller.abort()
      const returned = yield* Fiber.join(mirrorRun)
      expect(caughtUp.some((c) => c.requestedAt > ended), lines.map((l) => l.line).join("\n")).toBe(true)

      // the load did what it had to: every kind of write, archives and removals included
      for (const kind of ["person created", "person updated", "person archived", "person unarchived", "guests added", "guests updated", "guests removed"]) {
        expect(load.counts[kind] ?? 0, `${kind}: ${JSON.stringify(load.counts)}`).toBeGreaterThan(3)
      }
      // the mirror loaded while writes ran, and applied feed pages before they ended
      const loaded = lines.find((l) => l.line.startsWith("loaded "))
      expect(loaded?.at).toBeGreaterThan(started)
      expect(loaded?.at).toBeLessThan(ended)
      expect(lines.filter((l) => l.line.startsWith("applied ") && l.at < ended).length).toBeGreaterThan(1)

      const state = yield* apiState(server, token, load.personIds, events)
      // the final state holds archived persons and guests who were removed, so equality covers deletes
      expect(Object.values(state.persons).some((p) => p.archived)).toBe(true)
      expect(seeded.slice(0, 8).some((id) => !(id in state.guests[events[0]!]!))).toBe(true)
      const onFile = yield* Effect.promise(() => readMirror(file))
      expect(onFile).toEqual(returned)
      expectMirrorEquals(onFile, state)

      // the command line, from scratch, after the load, agrees
      const fresh = yield* temporaryFile("fresh.json")
      const cli = yield* runMirrorCli(server.url, token, fresh)
      expect(cli.code, cli.stderr).toBe(0)
      expectMirrorEquals(yield* Effect.promise(() => readMirror(fresh)), state)

      // a restart from the file sees later archives, removals and person changes of guests
      const guest = Object.keys(state.guests[events[1]!]!)[0]!
      const renamed = Object.keys(state.guests[events[0]!]!)[0]!
      const archivedNow = Object.values(state.persons).find((p) => !p.archived)!.personId
      expectStatus(yield* server.request("DELETE", `/event/${events[1]}/guestlist`, { token, body: { guests: [{ personId: guest }] } }), 200)
      expectStatus(yield* server.request("PUT", `/person/${renamed}`, { token, body: { personId: renamed, firstName: "Renamed" } }), 200)
      expectStatus(yield* server.request("DELETE", `/person/${archivedNow}`, { token }), 200)
      const resumed = yield* Effect.promise(() => runMirror({ baseUrl: server.url, token, file, once: true, log: () => {} }))
      const after = yield* apiState(server, token, load.personIds, events)
      expect(resumed.guests[events[1]!]).not.toHaveProperty(guest)
      expect(resumed.guests[events[0]!]![renamed]).toMatchObject({ firstName: "Renamed" })
      expect(resumed.persons[archivedNow]).toMatchObject({ archived: true })
      expectMirrorEquals(yield* Effect.promise(() => readMirror(file)), after)
    }), 90_000)
})

layer(liveServer({ CHANGES_RETENTION: "1s" }), { excludeTestServices: true })("the mirror example, cursor expired", (it) => {
  it.scoped("starts again on 410 and drops what was deleted meanwhile", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const { token } = yield* server.organization("mirror-expired")
      const file = yield* temporaryFile("mirror.json")
      const event = (yield* createEvent(server, { primaryDate: futureDate }, token)).eventId as string
      const ids: Array<string> = []
      for (let i = 0; i < 4; i++) ids.push(yield* createPerson(server, { firstName: `Old${i}` }, token))
      expectStatus(yield* server.request("POST", `/event/${event}/guestlist`, { token, body: { guests: ids.map((personId) => ({ personId })) } }), 200)
      const first = yield* Effect.promise(() => runMirror({ baseUrl: server.url, token, file, once: true, log: () => {} }))
      expect(Object.keys(first.guests[event]!).sort()).toEqual([...ids].sort())

      // changes the mirror will never see in the feed: they are past the retention when it asks
      expectStatus(yield* server.request("DELETE", `/event/${event}/guestlist`, { token, body: { guests: [{ personId: ids[0] }] } }), 200)
      expectStatus(yield* server.request("DELETE", `/person/${ids[1]}`, { token }), 200)
      ids.push(yield* createPerson(server, { firstName: "New" }, token))
      yield* Effect.sleep("2500 millis")

      const lines: Array<string> = []
      const second = yield* Effect.promise(() => runMirror({ baseUrl: server.url, token, file, once: true, log: (line) => lines.push(line) }))
      expect(lines.some((line) => line.includes("expired"))).toBe(true)
      expect(second.guests[event]).not.toHaveProperty(ids[0]!)
      expectMirrorEquals(yield* Effect.promise(() => readMirror(file)), yield* apiState(server, token, ids, [event]))
    }), 60_000)
})
