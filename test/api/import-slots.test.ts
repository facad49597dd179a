/**
 * CSV imports and slow request bodies (CONTRACT §18 "Request bodies", Csv/ImportSlots.ts,
 * Http/JsonBody.ts): at most two imports run at a time and one organization holds at most one of
 * them; an import takes its slot only once its body has arrived, so that clients sending their
 * files slowly hold none; a body not received in time gets 408 `request_timeout`; the dashboard's
 * upload checks its form's CSRF token before it takes anything. The servers run on TestClock here:
 * waits and time limits end when the test moves time.
 */
import { expect, layer } from "@effect/vitest"
import { Duration, Effect, Exit, Fiber, TestClock } from "effect"
import { type ClientRequest, request } from "node:http"
import { ImportSlots, IMPORT_SLOTS, IMPORT_WAIT } from "../../src/Csv/ImportSlots.js"
import { BODY_STALL_TIMEOUT, JSON_BODY_TIMEOUT } from "../../src/Http/ClientTimeouts.js"
import { OrganizationRowId } from "../../src/Domain/RowIds.js"
import { addMember, newOrganization, SESSION_COOKIE, signIn, textOf } from "../support/Dashboard.js"
import { TestServer, testServer, type TestServerShape } from "../support/TestServer.js"

/** PUBLIC_BASE_URL of the test server: what a browser sends as `Origin`. */
const ORIGIN = "https://convene.test"

const realPause = (ms: number) => Effect.promise(() => new Promise((resolve) => setTimeout(resolve, ms)))

interface Answer {
  readonly status: number
  readonly headers: Record<string, string | Array<string> | undefined>
  readonly body: string
}

interface SlowBody {
  readonly request: ClientRequest
  /** Sends more of the body. */
  readonly send: (text: string) => Effect.Effect<void>
  /** The answer, read whole; or the error that broke the connection before it. */
  readonly answer: Promise<Answer | Error>
}

/** A request to `server` whose body (announced by Content-Length) arrives only as the test sends it. */
const slowBody = (
  server: Pick<TestServerShape, "url" | "connect">,
  path: string,
  headers: Record<string, string>,
  length: number,
  first: string
): Effect.Effect<SlowBody> =>
  Effect.promise(() =>
    new Promise((resolve) => {
      let answered!: (answer: Answer | Error) => void
      const answer = new Promise<Answer | Error>((r) => (answered = r))
      const req = request(server.url + path, {
        method: "POST",
        createConnection: server.connect,
        headers: { ...headers, "content-length": String(length) }
      }, (res) => {
        let body = ""
        res.setEncoding("utf8")
        res.on("data", (chunk: string) => (body += chunk))
        res.on("end", () => answered({ status: res.statusCode!, headers: res.headers, body }))
        res.on("error", answered)
      })
      req.on("error", answered)
      const send = (text: string) => Effect.promise(() => new Promise<void>((r) => req.write(text, () => r())))
      req.write(first, () => resolve({ request: req, send, answer }))
    })
  )

layer(ImportSlots.Default)("import slots", (it) => {
  const a = OrganizationRowId(1)
  const b = OrganizationRowId(2)

  it.scoped("one organization holds one slot: its second import waits and is refused after IMPORT_WAIT, while another's runs at once", () =>
    Effect.gen(function*() {
      const slots = yield* ImportSlots
      expect(IMPORT_SLOTS).toBe(2)
      const first = yield* Effect.fork(slots.run(a, Effect.never))
      yield* Effect.yieldNow()
      expect(slots.held(a)).toBe(1)
      const second = yield* Effect.fork(slots.run(a, Effect.succeed("a second")))
      yield* Effect.yieldNow()
      expect(second.unsafePoll(), "A's second import waits for A's slot").toBeNull()
      expect(yield* slots.run(b, Effect.succeed("b")), "B takes the free slot at once").toBe("b")
      yield* TestClock.adjust(IMPORT_WAIT)
      const refused = yield* Fiber.await(second)
      expect(Exit.isFailure(refused) && refused.cause._tag === "Fail" && refused.cause.error._tag).toBe("ImportsBusy")
      // a slot given back goes to the next in line
      const third = yield* Effect.fork(slots.run(a, Effect.succeed("a third")))
      yield* Effect.yieldNow()
      yield* Fiber.interrupt(first)
      expect(yield* Fiber.join(third)).toBe("a third")
      expect(slots.held()).toBe(0)
    }))

  it.scoped("a request that goes away while it waits leaves the line at once, even from an uninterruptible region (a request's)", () =>
    Effect.gen(function*() {
      const slots = yield* ImportSlots
      const holder = yield* Effect.fork(slots.run(a, Effect.never))
      yield* Effect.yieldNow()
      const waiting = yield* Effect.fork(Effect.uninterruptible(slots.run(a, Effect.succeed("never"))))
      yield* Effect.yieldNow()
      yield* Fiber.interrupt(waiting)
      yield* Fiber.interrupt(holder)
      expect(slots.held()).toBe(0)
      expect(yield* slots.run(a, Effect.succeed("next")), "the line is empty: the next takes the slot at once").toBe("next")
    }))

  it.scoped("a slot given back goes to the first in line whose organization holds none, past one that holds its own", () =>
    Effect.gen(function*() {
      const slots = yield* ImportSlots
      const c = OrganizationRowId(3)
      const holdA = yield* Effect.fork(slots.run(a, Effect.never))
      const holdB = yield* Effect.fork(slots.run(b, Effect.never))
      yield* Effect.yieldNow()
      const secondA = yield* Effect.fork(slots.run(a, Effect.succeed("a")))
      const firstC = yield* Effect.fork(slots.run(c, Effect.succeed("c")))
      yield* Effect.yieldNow()
      expect([secondA.unsafePoll(), firstC.unsafePoll()]).toEqual([null, null])
      yield* Fiber.interrupt(holdB)
      expect(yield* Fiber.join(firstC), "C, though in line after A's second").toBe("c")
      expect(secondA.unsafePoll(), "A's second still waits for A's own slot").toBeNull()
      yield* Fiber.interrupt(holdA)
      expect(yield* Fiber.join(secondA)).toBe("a")
      expect(slots.held()).toBe(0)
    }))
})

layer(testServer())("request bodies", (it) => {
  it.scoped("imports whose bodies dribble hold no slot: another organization's import, and their own, run; a stalled body gets 408", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const orgA = yield* server.organization("dribble-a")
      const orgB = yield* server.organization("dribble-b")
      const slots = yield* ImportSlots
      const importing = (token: string, csv: string) =>
        Effect.promise(() =>
          fetch(`${server.url}/person/import?dryRun=true`, {
            method: "POST",
            headers: { "x-api-key": token, "content-type": "text/csv" },
            body: csv,
            signal: AbortSignal.timeout(10_000)
          }).then(async (r) => ({ status: r.status, body: await r.json() }), (e: Error) => ({ status: 0, body: e.message })))

      // two imports of A announce a megabyte and send a byte now and then
      const headers = { "x-api-key": orgA.token, "content-type": "text/csv" }
      const dribbling = yield* Effect.acquireRelease(
        Effect.all([0, 1].map(() => slowBody(server, `/person/import?dryRun=true`, headers, 1_000_000, "email,firstName,lastName\n"))),
        (bodies) => Effect.sync(() => bodies.forEach((body) => body.request.destroy()))
      )
      for (let i = 0; i < 3; i++) {
        yield* realPause(200)
        for (const body of dribbling) yield* body.send("a")
      }
      expect(slots.held(), "a body still arriving holds no slot").toBe(0)

      // B's import, and A's own complete one, answer at once
      for (const [token, label] of [[orgB.token, "b"], [orgA.token, "a"]] as const) {
        const started = performance.now()
        const answer = yield* importing(token, `email,firstName,lastName\n${label}@acme.test,Ana,Lima\n`)
        expect(answer, label).toEqual({ status: 200, body: expect.objectContaining({ dryRun: true, rows: 1, created: 1 }) })
        expect(performance.now() - started).toBeLessThan(5_000)
      }

      // no byte for BODY_STALL_TIMEOUT: 408, a whole answer in the error shape
      yield* realPause(200)
      yield* TestClock.adjust(BODY_STALL_TIMEOUT)
      for (const body of dribbling) {
        const answer = yield* Effect.promise(() => body.answer)
        expect(answer).toMatchObject({ status: 408, headers: { connection: "close" } })
        expect(JSON.parse((answer as Answer).body)).toEqual({ message: "The request body stalled: no byte of it for 30 seconds", code: "request_timeout" })
      }
      expect(slots.held()).toBe(0)
    }), 60_000)

  it.scoped("a JSON body that keeps arriving but not whole within JSON_BODY_TIMEOUT gets 408", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const body = yield* Effect.acquireRelease(
        slowBody(server, `/person`, { "x-api-key": "cvn_test_0123456789abcdefghijklmnopqrstuvwxyz", "content-type": "application/json" }, 100, "{"),
        (slow) => Effect.sync(() => slow.request.destroy())
      )
      // a byte every 20 s: never a stall, but past 60 s in all
      const step = Duration.toMillis(JSON_BODY_TIMEOUT) / 3
      for (let i = 0; i < 3; i++) {
        yield* realPause(200)
        yield* TestClock.adjust(step)
        yield* body.send(" ")
      }
      yield* realPause(200)
      yield* TestClock.adjust(step / 2)
      const answer = yield* Effect.promise(() => body.answer)
      expect(answer).toMatchObject({ status: 408 })
      expect(JSON.parse((answer as Answer).body)).toEqual({ message: "The request body did not arrive within 60 seconds", code: "request_timeout" })
    }), 60_000)

  it.scoped("a dashboard form and an RSVP form that stall get 408 as well", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const form = { "content-type": "application/x-www-form-urlencoded", origin: ORIGIN }
      const bodies = yield* Effect.acquireRelease(
        Effect.all([
          slowBody(server, `/app/login`, form, 200, "email="),
          slowBody(server, `/rsvp/some-event?invite=some-token`, form, 200, "rsvpStatus=")
        ]),
        (slow) => Effect.sync(() => slow.forEach((body) => body.request.destroy()))
      )
      yield* realPause(300)
      yield* TestClock.adjust(BODY_STALL_TIMEOUT)
      const [page, rsvp] = yield* Effect.promise(() => Promise.all(bodies.map((body) => body.answer)))
      expect(page).toMatchObject({ status: 408, headers: { connection: "close" } })
      expect(textOf((page as Answer).body)).toContain("The form did not arrive in time")
      expect(rsvp).toMatchObject({ status: 408, headers: { connection: "close" } })
    }), 60_000)

  it.scoped("the dashboard's upload checks its CSRF token before it waits for an import slot", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const slots = yield* ImportSlots
      const organization = yield* newOrganization(server, "upload-slots")
      const member = yield* addMember(organization, "Team Member")
      const browser = yield* signIn(server.url, member, { origin: ORIGIN, next: "/app/account" })
      const csrf = yield* browser.csrf
      const upload = (token: string) =>
        Effect.promise(async () => {
          const form = new FormData()
          form.append("_csrf", token)
          form.append("file", new Blob(["email,firstName,lastName\nana@acme.test,Ana,Lima\n"], { type: "text/csv" }), "contacts.csv")
          const encoded = new Response(form)
          const response = await fetch(`${server.url}/app/contacts/import`, {
            method: "POST",
            body: new Uint8Array(await encoded.arrayBuffer()),
            headers: { cookie: `${SESSION_COOKIE}=${browser.session()}`, origin: ORIGIN, "content-type": encoded.headers.get("content-type")! },
            redirect: "manual",
            signal: AbortSignal.timeout(10_000)
          })
          return { status: response.status, text: textOf(await response.text()) }
        })

      // the organization's slot is taken (another import of its own runs)
      const holder = yield* Effect.fork(slots.run(organization.id, Effect.never))
      yield* Effect.yieldNow()
      expect(slots.held(organization.id)).toBe(1)

      // a forged form is refused at once, without waiting for a slot
      const forged = yield* upload("forged")
      expect(forged.status).toBe(403)
      expect(forged.text).toContain("This form expired")

      // a genuine one waits for the slot, and is refused after IMPORT_WAIT
      const genuine = yield* Effect.fork(upload(csrf))
      yield* realPause(500)
      expect(genuine.unsafePoll()).toBeNull()
      yield* TestClock.adjust(IMPORT_WAIT)
      const refused = yield* Fiber.join(genuine)
      expect(refused.status).toBe(503)
      expect(refused.text).toContain("Other imports are running right now")
      yield* Fiber.interrupt(holder)

      // with the slot free, it goes through to the preview
      expect((yield* upload(csrf)).status).toBe(303)
    }), 60_000)
})
