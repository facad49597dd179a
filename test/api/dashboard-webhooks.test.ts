/**
 * The dashboard's Team settings › Webhooks over HTTP (docs/integrators.md#webhooks): registering, the signing
 * secret on request (the API's own), test deliveries that reach the receiver signed, the delivery
 * log with its filters, pages and retries, deleting; Admins only, other organizations' ids unknown,
 * refused URLs explained at the field, and what receivers send back never becoming markup.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Option, Redacted } from "effect"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { Webhook } from "standardwebhooks"
import type { Role } from "../../src/Domain/Role.js"
import { Members } from "../../src/Organizations/Members.js"
import { eventually, expectStatus, uniqueEmail } from "../support/Fixtures.js"
import { type Received, receiver } from "../support/Receiver.js"
import { TestServer, testServer } from "../support/TestServer.js"

/** PUBLIC_BASE_URL of the test server: what the browser sends as `Origin`. */
const ORIGIN = "https://convene.test"

type Server = TestServer["Type"]

interface Page {
  readonly status: number
  readonly html: string
  readonly location: string | null
  readonly headers: Headers
}

let counter = 0
const next = () => `${process.pid}-${++counter}`

const csrfOf = (html: string) => /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? ""

const decodeEntities = (text: string) =>
  text.replace(/&(lt|gt|quot|#39|#x27|amp);/g, (_, e: string) => ({ lt: "<", gt: ">", quot: "\"", "#39": "'", "#x27": "'", amp: "&" })[e]!)

/** What the page says: tags dropped, entities decoded, white space folded. */
const textOf = (html: string) => decodeEntities(html.replace(/<[^>]+>/g, " ")).replace(/\s+/g, " ")

const fetchPage = (url: string, init: RequestInit) =>
  Effect.promise(async () => {
    const response = await fetch(url, { ...init, redirect: "manual" })
    return {
      response,
      page: { status: response.status, html: await response.text(), location: response.headers.get("location"), headers: response.headers } as Page
    }
  })

/** A member signed in through the sign-in form: GET pages, POST forms with the session's CSRF token. */
const signIn = (server: Server, email: string, password: string) =>
  Effect.gen(function*() {
    const form = yield* fetchPage(`${server.url}/app/login`, {})
    const signInCookie = form.response.headers.getSetCookie().find((c) => c.startsWith("convene_signin="))!.split(";")[0]!
    const signedIn = yield* fetchPage(`${server.url}/app/login`, {
      method: "POST",
      headers: { cookie: signInCookie, origin: ORIGIN, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ _csrf: csrfOf(form.page.html), email, password, next: "/app/account" }).toString()
    })
    expect(signedIn.page.status, signedIn.page.html).toBe(303)
    const cookie = signedIn.response.headers.getSetCookie().find((c) => c.startsWith("convene_session="))!.split(";")[0]!
    const get = (path: string) => Effect.map(fetchPage(server.url + path, { headers: { cookie } }), (r) => r.page)
    const csrf = csrfOf((yield* get("/app/account")).html)
    expect(csrf).not.toBe("")
    return {
      get,
      post: (path: string, fields: ReadonlyArray<readonly [string, string]> = [], forged: { csrf?: string; origin?: string } = {}) =>
        Effect.map(
          fetchPage(server.url + path, {
            method: "POST",
            headers: { cookie, origin: forged.origin ?? ORIGIN, "content-type": "application/x-www-form-urlencoded" },
            body: new URLSearchParams([["_csrf", forged.csrf ?? csrf], ...fields.map(([name, value]) => [name, value])]).toString()
          }),
          (r) => r.page
        )
    }
  })
type Browser = Effect.Effect.Success<ReturnType<typeof signIn>>

/** An organization with its API token and members of `roles`, each signed in. */
const organization = <const R extends ReadonlyArray<Role>>(label: string, roles: R) =>
  Effect.gen(function*() {
    const server = yield* TestServer
    const slug = `${label}-${next()}`
    const created = yield* server.organization(slug)
    const members = yield* Members
    const browsers: Array<Browser> = []
    for (const role of roles) {
      const email = uniqueEmail(`${slug}-${role.replace(" ", "").toLowerCase()}`)
      const password = `password of ${email}`
      yield* members.addDirectly({ id: created.id, slug, name: slug }, {
        email,
        password: Option.some(Redacted.make(password)),
        firstName: "Pat",
        lastName: role,
        role
      }).pipe(Effect.orDie)
      browsers.push(yield* signIn(server, email, password))
    }
    return { token: created.token, members: browsers as { [K in keyof R]: Browser } }
  })

const PAGE = "/app/team/webhooks"

/** The ids of the registrations a page lists, in its order (from their forms' actions). */
const registrationIds = (html: string) =>
  [...new Set([...html.matchAll(/\/app\/team\/webhooks\/([0-9a-f-]{36})\/secret/g)].map((m) => m[1]!))]

/** Verifies a delivery with the Standard Webhooks reference implementation. */
const verify = (secret: string, received: Received) =>
  new Webhook(secret).verify(received.body, {
    "webhook-id": String(received.headers["webhook-id"]),
    "webhook-timestamp": String(received.headers["webhook-timestamp"]),
    "webhook-signature": String(received.headers["webhook-signature"])
  })

const api = (server: Server, token: string) => ({
  register: (webhook: string, type: string) =>
    Effect.map(server.request("POST", "/webhook", { token, body: { webhook, type } }), (r) => expectStatus(r, 200).body.secret as string),
  test: (webhook: string, type: string) => server.request("POST", "/webhook/test", { token, body: { webhook, type } }),
  unregister: (webhook: string, type: string) => server.request("DELETE", "/webhook", { token, body: { webhook, type } }),
  deliveries: (query = "") =>
    Effect.map(server.request("GET", `/webhook/deliveries${query}`, { token }), (r) => expectStatus(r, 200).body as { deliveries: Array<any>; total: number })
})


/** A receiver that answers every request with `status` and a body of markup. */
const hostileReceiver = (status: number, body: string) =>
  Effect.acquireRelease(
    Effect.async<{ url: string; close: () => void }>((resume) => {
      const server = createServer((req, res) => {
        req.resume()
        req.on("end", () => {
          res.writeHead(status, { "content-type": "text/html" })
          res.end(body)
        })
      })
      server.listen(0, "127.0.0.1", () =>
        resume(Effect.succeed({
          url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
          close: () => {
            server.closeAllConnections()
            server.close()
          }
        })))
    }),
    (r) => Effect.sync(r.close)
  )

const fast = { WEBHOOK_RETRY_SCHEDULE: "150ms,30s", WEBHOOK_TIMEOUT: "1 second" }

layer(testServer(fast), { excludeTestServices: true })("dashboard: webhooks", (it) => {
  describe("an Admin", () => {
    it.scoped("registers, sees the API's secret on request, sends a test delivery the receiver gets, and deletes", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const hook = yield* receiver
        const org = yield* organization("wh-page", ["Admin"])
        const [admin] = org.members
        const rest = api(server, org.token)

        const empty = yield* admin.get(PAGE)
        expect(empty.status).toBe(200)
        expect(empty.html.match(/<h1[\s>]/g)).toHaveLength(1)
        expect(empty.html).toMatch(/<a href="\/app\/team\/webhooks" aria-current="page">Webhooks<\/a>/)
        expect(textOf(empty.html)).toContain("No webhooks yet: register a URL to be told when guests answer.")
        expect(textOf(empty.html)).toContain("No deliveries yet.")

        const url = hook.url("/guests")
        const registered = yield* admin.post(PAGE, [["webhook", `  ${url}  `], ["type", "EventPerson"]])
        expect(registered.status).toBe(303)
        expect(registered.location).toBe(PAGE)
        const listed = yield* admin.get(PAGE)
        expect(textOf(listed.html)).toContain(`Registered the EventPerson webhook for ${url}.`)
        expect(textOf(listed.html)).toMatch(new RegExp(`${url.replace(/[.?]/g, "\\$&")} EventPerson Active`))
        const [id] = registrationIds(listed.html)
        expect(id).toBeDefined()
        // registering again through the page is the same registration (as POST /webhook)
        expect((yield* admin.post(PAGE, [["webhook", url], ["type", "EventPerson"]])).status).toBe(303)
        const again = yield* admin.get(PAGE)
        expect(textOf(again.html)).toContain(`The EventPerson webhook for ${url} was registered already: nothing changed.`)
        expect(registrationIds(again.html)).toEqual([id])

        // the secret: the API's, in the answer to the POST only, never stored by the browser
        const secret = yield* rest.register(url, "EventPerson")
        expect(listed.html).not.toContain(secret)
        const revealed = yield* admin.post(`${PAGE}/${id}/secret`)
        expect(revealed.status).toBe(200)
        expect(revealed.location).toBeNull()
        expect(revealed.headers.get("cache-control")).toBe("no-store")
        expect(revealed.html).toContain(`value="${secret}"`)
        expect(revealed.html).toMatch(/<label for="signing-secret">Signing secret<\/label>/)
        expect(revealed.html).not.toContain("data-poll")
        expect((yield* admin.get(PAGE)).html).not.toContain(secret)

        // a test delivery: the page follows it, the receiver gets it signed with that secret
        const sent = yield* admin.post(`${PAGE}/${id}/test`)
        expect(sent.status).toBe(303)
        const deliveryId = /[?&]delivery=([0-9a-f-]{36})/.exec(sent.location ?? "")?.[1]
        expect(deliveryId).toBeDefined()
        const received = yield* hook.next()
        expect(received.path).toBe("/guests")
        expect(received.headers["webhook-id"]).toMatch(/^msg_test_/)
        const sample = expectStatus(yield* server.request("GET", "/webhook", { token: org.token }), 200).body
        expect(verify(secret, received)).toEqual(sample.contacts)
        const log = yield* eventually(rest.deliveries(), (l) => l.deliveries[0]?.status === "delivered")
        expect(log.deliveries).toEqual([expect.objectContaining({ deliveryId, type: "EventPerson", test: true, status: "delivered", attempts: 1 })])
        const followed = yield* admin.get(sent.location!)
        expect(followed.status).toBe(200)
        const text = textOf(followed.html)
        expect(text).toContain(`Test delivery of a sample EventPerson notification sent to ${url}.`)
        expect(text).toContain(`Test delivery of EventPerson to ${url}`)
        expect(text).toContain("Delivered: the receiver answered HTTP 200.")
        expect(text).toContain(String(received.headers["webhook-id"]))
        expect(followed.html).toMatch(/<span class="badge good">Delivered<\/span>/)

        // deleting asks first (without scripts), then cancels and stops notifications
        const asked = yield* admin.post(`${PAGE}/${id}/delete`)
        expect(asked.status).toBe(200)
        expect(textOf(asked.html)).toContain("Delete the EventPerson webhook?")
        expect(asked.html).toContain(`name="confirm" value="yes"`)
        expect(registrationIds((yield* admin.get(PAGE)).html)).toEqual([id])
        const deleted = yield* admin.post(`${PAGE}/${id}/delete`, [["confirm", "yes"]])
        expect(deleted.status).toBe(303)
        const after = yield* admin.get(PAGE)
        expect(textOf(after.html)).toContain(`Deleted the EventPerson webhook for ${url}.`)
        expect(registrationIds(after.html)).toEqual([])
        expect((yield* rest.unregister(url, "EventPerson")).status).toBe(404)
        expect((yield* rest.test(url, "EventPerson")).status).toBe(404)
        // the log keeps what was sent
        expect(textOf(after.html)).toMatch(/EventPerson Test .* registration deleted/)
      }))

    it.scoped("deleting cancels pending deliveries, as DELETE /webhook does", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const hook = yield* receiver
        hook.answer = () => 503
        const org = yield* organization("wh-cancel", ["Admin"])
        const [admin] = org.members
        const rest = api(server, org.token)
        yield* rest.register(hook.url(), "GuestList")
        const id = registrationIds((yield* admin.get(PAGE)).html)[0]!
        yield* admin.post(`${PAGE}/${id}/test`)
        // after two failed attempts the next one is 30 s away: pending
        yield* eventually(rest.deliveries(), (l) => l.deliveries[0]?.attempts === 2)
        const pending = yield* admin.get(`${PAGE}?status=pending`)
        expect(textOf(pending.html)).toContain("1 delivery pending")
        expect(pending.html).toMatch(/<span class="badge info">Pending<\/span>/)
        expect(pending.html).toContain(`data-poll="5"`)
        expect((yield* admin.post(`${PAGE}/${id}/delete`, [["confirm", "yes"]])).status).toBe(303)
        const page = yield* admin.get(PAGE)
        expect(textOf(page.html)).toContain(`Deleted the GuestList webhook for ${hook.url()}. 1 pending delivery was cancelled.`)
        expect((yield* rest.deliveries()).deliveries[0]).toMatchObject({ status: "cancelled", lastError: "registration deleted", registration: "deleted" })
        expect(page.html).toMatch(/<span class="badge neutral">Cancelled<\/span>/)
      }))

    it.scoped("retries a failed delivery from the log, filters it by status and pages it", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const hook = yield* receiver
        hook.answer = (_, n) => (n === 1 ? 410 : 200)
        const org = yield* organization("wh-retry", ["Admin"])
        const [admin] = org.members
        const rest = api(server, org.token)
        yield* rest.register(hook.url(), "Event")
        const id = registrationIds((yield* admin.get(PAGE)).html)[0]!
        yield* admin.post(`${PAGE}/${id}/test`)
        const failed = (yield* eventually(rest.deliveries(), (l) => l.deliveries[0]?.status === "failed")).deliveries[0]
        expect(failed).toMatchObject({ lastStatusCode: 410, registration: "disabled" })

        const log = yield* admin.get(`${PAGE}?status=failed`)
        expect(log.html).toMatch(/<a href="\/app\/team\/webhooks\?status=failed" aria-current="page">Failed<\/a>/)
        expect(textOf(log.html)).toContain("1 delivery failed")
        expect(textOf(log.html)).toContain("410 Gone: the receiver asked to stop; the registration is disabled")
        expect(textOf(log.html)).toContain("registration disabled")
        expect(textOf(log.html)).toContain(`${hook.url()} 1 failed Event Disabled`)
        expect(log.html).toContain(`aria-label="Enable the Event webhook for ${hook.url()} again"`)
        const retryAction = `/app/team/webhooks/deliveries/${failed.deliveryId}/retry`
        expect(log.html).toContain(`action="${retryAction}"`)
        expect((yield* admin.get(`${PAGE}?status=delivered`)).html).toContain("No delivered deliveries.")

        const retried = yield* admin.post(retryAction, [["status", "failed"]])
        expect(retried.status).toBe(303)
        expect(retried.location).toBe(`${PAGE}?status=failed&delivery=${failed.deliveryId}`)
        yield* eventually(rest.deliveries(), (l) => l.deliveries[0]?.status === "delivered")
        expect(hook.received).toHaveLength(2)
        expect(hook.received[1]!.headers["webhook-id"]).toBe(hook.received[0]!.headers["webhook-id"])
        const followed = yield* admin.get(retried.location!)
        expect(textOf(followed.html)).toContain("Retrying the delivery now: one more attempt.")
        expect(textOf(followed.html)).toContain("Delivered: the receiver answered HTTP 200.")
        // a delivered one is not retried: said so, nothing sent
        const refused = yield* admin.post(retryAction)
        expect(refused.status).toBe(303)
        expect(textOf((yield* admin.get(refused.location!)).html)).toContain("The delivery is delivered; only failed or cancelled deliveries are retried.")

        // enabling the disabled registration again (as POST /webhook does), then pages of 25
        expect((yield* admin.post(PAGE, [["webhook", hook.url()], ["type", "Event"]])).status).toBe(303)
        expect(textOf((yield* admin.get(PAGE)).html)).toContain(`The Event webhook for ${hook.url()} is enabled again: new notifications reach it.`)
        for (let i = 0; i < 25; i++) expectStatus(yield* rest.test(hook.url(), "Event"), 200)
        yield* eventually(rest.deliveries("?status=delivered"), (l) => l.total === 26)
        const first = yield* admin.get(PAGE)
        expect(textOf(first.html)).toContain("1–25 of 26 deliveries")
        expect(first.html).toContain(`href="/app/team/webhooks?skip=25" rel="next"`)
        const second = yield* admin.get(`${PAGE}?skip=25`)
        expect(textOf(second.html)).toContain("26–26 of 26 deliveries")
        expect(second.html).toContain(retryAction.replace("/retry", "").split("/").pop()!)
      }))
  })

  describe("roles and organizations", () => {
    it.scoped("a Team Member or Viewer gets 403 on every page and form, sees no Webhooks tab, and changes nothing", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const hook = yield* receiver
        const org = yield* organization("wh-roles", ["Admin", "Team Member", "Viewer"])
        const [admin, teamMember, viewer] = org.members
        const rest = api(server, org.token)
        yield* rest.register(hook.url("/kept"), "EventPerson")
        const id = registrationIds((yield* admin.get(PAGE)).html)[0]!
        yield* admin.post(`${PAGE}/${id}/test`)
        yield* hook.next()
        const deliveryId = (yield* eventually(rest.deliveries(), (l) => l.deliveries[0]?.status === "delivered")).deliveries[0].deliveryId
        for (const member of [teamMember, viewer]) {
          const events = yield* member.get("/app/events")
          expect(events.status).toBe(200)
          expect(events.html).not.toContain("/app/team/webhooks")
          expect(events.html).not.toContain("Team settings")
          expect((yield* member.get(PAGE)).status).toBe(403)
          expect((yield* member.get(`${PAGE}?delivery=${deliveryId}`)).status).toBe(403)
          for (const [path, fields] of [
            [PAGE, [["webhook", hook.url("/forged")], ["type", "EventPerson"]]],
            [`${PAGE}/${id}/secret`, []],
            [`${PAGE}/${id}/test`, []],
            [`${PAGE}/${id}/delete`, [["confirm", "yes"]]],
            [`${PAGE}/deliveries/${deliveryId}/retry`, []]
          ] as const) {
            const forged = yield* member.post(path, fields)
            expect(forged.status, path).toBe(403)
            expect(textOf(forged.html)).not.toMatch(/whsec_/)
          }
        }
        // nothing changed: the forged URL is unknown, the registration is still there, one delivery only
        expect((yield* rest.unregister(hook.url("/forged"), "EventPerson")).status).toBe(404)
        expect(registrationIds((yield* admin.get(PAGE)).html)).toEqual([id])
        yield* Effect.sleep("200 millis")
        expect(hook.received).toHaveLength(1)
        expect((yield* rest.deliveries()).total).toBe(1)
        // an Admin's form without its CSRF token, or from another site, is refused too
        expect((yield* admin.post(`${PAGE}/${id}/secret`, [], { csrf: "forged" })).status).toBe(403)
        const offsite = yield* admin.post(`${PAGE}/${id}/delete`, [["confirm", "yes"]], { origin: "https://evil.example" })
        expect(offsite.status).toBe(403)
        expect(registrationIds((yield* admin.get(PAGE)).html)).toEqual([id])
      }))

    it.scoped("another organization's registrations and deliveries are unknown: 404", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const hook = yield* receiver
        const mine = yield* organization("wh-mine", ["Admin"])
        const theirs = yield* organization("wh-theirs", ["Admin"])
        const [admin] = mine.members
        const [other] = theirs.members
        const secret = yield* api(server, theirs.token).register(hook.url("/theirs"), "GuestList")
        const id = registrationIds((yield* other.get(PAGE)).html)[0]!
        yield* other.post(`${PAGE}/${id}/test`)
        yield* hook.next()
        const deliveryId = (yield* eventually(api(server, theirs.token).deliveries(), (l) => l.deliveries[0]?.status === "delivered"))
          .deliveries[0].deliveryId

        expect((yield* admin.get(`${PAGE}?delivery=${deliveryId}`)).status).toBe(404)
        expect((yield* admin.get(`${PAGE}?delivery=unknown`)).status).toBe(404)
        for (const path of [`${PAGE}/${id}/secret`, `${PAGE}/${id}/test`, `${PAGE}/${id}/delete`, `${PAGE}/deliveries/${deliveryId}/retry`]) {
          const reply = yield* admin.post(path, [["confirm", "yes"]])
          expect(reply.status, path).toBe(404)
          expect(reply.html).not.toContain(secret)
        }
        const page = yield* admin.get(PAGE)
        expect(page.html).not.toContain(hook.url("/theirs"))
        expect(page.html).not.toContain(deliveryId)
        // theirs is untouched
        yield* Effect.sleep("200 millis")
        expect(hook.received).toHaveLength(1)
        expect(registrationIds((yield* other.get(PAGE)).html)).toEqual([id])
      }))
  })

  it.scoped("renders what URLs and receivers send as text, never markup", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const hostile = yield* hostileReceiver(500, `<script>alert("answer")</script><img src=x onerror="alert(1)">`)
      const org = yield* organization("wh-xss", ["Admin"])
      const [admin] = org.members
      const url = `${hostile.url}/hook?q=<script>alert("url")</script>&x="><img/src=y/onerror=alert(2)>`
      expect((yield* admin.post(PAGE, [["webhook", url], ["type", "EventPerson"]])).status).toBe(303)
      const id = registrationIds((yield* admin.get(PAGE)).html)[0]!
      const sent = yield* admin.post(`${PAGE}/${id}/test`)
      yield* eventually(api(server, org.token).deliveries(), (l) => l.deliveries[0]?.attempts === 2)
      for (const page of [yield* admin.get(PAGE), yield* admin.get(sent.location!), yield* admin.post(`${PAGE}/${id}/secret`)]) {
        expect(page.status).toBe(200)
        expect(page.html).not.toContain("<script>alert")
        expect(page.html).not.toContain("<img")
        expect(page.html).not.toContain(`"><img`)
        expect(page.html).toContain("&lt;script>alert(&quot;answer&quot;)&lt;/script>")
        expect(textOf(page.html)).toContain(`<script>alert("answer")</script><img src=x onerror="alert(1)">`)
        expect(textOf(page.html)).toContain(url)
        expect(page.html.match(/<script\b/g)).toHaveLength(1) // the page's own module
      }
      // a refused URL with markup is kept in the field as text
      const refused = yield* admin.post(PAGE, [["webhook", `javascript:alert("<b>")`], ["type", "EventPerson"]])
      expect(refused.status).toBe(400)
      expect(refused.html).not.toContain(`<b>`)
      expect(refused.html).toContain(`value="javascript:alert(&quot;&lt;b>&quot;)"`)
    }))
})

layer(testServer({ ...fast, WEBHOOK_ALLOW_PRIVATE_DESTINATIONS: "false" }), { excludeTestServices: true })("dashboard: refused webhook URLs", (it) => {
  it.effect("explains each refusal at the field, keeps what was typed, and registers nothing", () =>
    Effect.gen(function*() {
      const org = yield* organization("wh-refused", ["Admin"])
      const [admin] = org.members
      for (const [webhook, message] of [
        ["http://127.0.0.1:8080/hook", "The URL must not point to a loopback, private or link-local address."],
        ["http://169.254.169.254/latest/meta-data", "The URL must not point to a loopback, private or link-local address."],
        ["http://[::1]/hook", "The URL must not point to a loopback, private or link-local address."],
        ["http://10.1.2.3/hook", "The URL must not point to a loopback, private or link-local address."],
        ["http://localhost/hook", "The URL must not point to a local host name."],
        ["http://metadata.internal/hook", "The URL must not point to a local host name."],
        ["https://user:secret@hooks.example.com/a", "The URL must not carry credentials."],
        ["ftp://hooks.example.com/a", "The URL must be an absolute http(s) URL."],
        ["javascript:alert(1)", "The URL must be an absolute http(s) URL."],
        ["/relative/hook", "The URL must be an absolute http(s) URL."],
        ["", "Enter the URL to send notifications to."]
      ] as const) {
        const reply = yield* admin.post(PAGE, [["webhook", webhook], ["type", "GuestList"]])
        expect(reply.status, webhook).toBe(400)
        // the message beside the field, the field marked invalid and described by it, the value kept
        expect(reply.html).toContain(`<p class="error-text" id="f-webhook-error">${message}</p>`)
        expect(reply.html).toMatch(/<input id="f-webhook"[^>]*aria-invalid="true"[^>]*aria-describedby="f-webhook-hint f-webhook-error"/)
        if (webhook !== "") expect(reply.html).toContain(`value="${webhook}"`)
        expect(reply.html).toMatch(/<option value="GuestList" selected/)
        expect(textOf(reply.html)).toContain(`Please correct this: ${message}`)
      }
      const badType = yield* admin.post(PAGE, [["webhook", "https://hooks.example.com/a"], ["type", "Person"]])
      expect(badType.status).toBe(400)
      expect(badType.html).toContain(`<p class="error-text" id="f-type-error">Choose what to be told about: EventPerson, GuestList or Event.</p>`)
      expect(registrationIds((yield* admin.get(PAGE)).html)).toEqual([])
      // a public URL is fine
      expect((yield* admin.post(PAGE, [["webhook", "https://hooks.example.com/a"], ["type", "GuestList"]])).status).toBe(303)
      expect(registrationIds((yield* admin.get(PAGE)).html)).toHaveLength(1)
    }))
})
