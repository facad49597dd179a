/**
 * The dashboard's contacts over HTTP (docs/integrators.md#persons, docs/integrators.md#csv-export-and-import): contacts created and edited through
 * the pages are the API's own (custom fields of every type, a number kept digit for digit),
 * archiving and unarchiving with the API's 409, search, a contact's event history with payment
 * fields by role, roles enforced on the server, other organizations' contacts that do not exist,
 * stored text that never becomes markup, the CSV import flow (upload, preview with every row
 * error and nothing written, confirm) and the CSV export.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import type { Role } from "../../src/Domain/Role.js"
import { addMember, type DashboardClient, decodeEntities, type PageReply, SESSION_COOKIE, signIn, textOf } from "../support/Dashboard.js"
import { queryDatabase } from "../support/Engine.js"
import { createEvent, createPerson, expectStatus, uniqueEmail } from "../support/Fixtures.js"
import { TestServer, testServer } from "../support/TestServer.js"

/** PUBLIC_BASE_URL of the test server: what the browser sends as `Origin`. */
const ORIGIN = "https://convene.test"

type Server = TestServer["Type"]

let counter = 0
const next = () => `${process.pid}-${++counter}`

interface Member {
  readonly userId: string
  readonly browser: DashboardClient
}

/** A new organization with its API token (role Admin), and members of the given roles signed in to the dashboard. */
const organization = <const R extends ReadonlyArray<Role>>(label: string, roles: R) =>
  Effect.gen(function*() {
    const server = yield* TestServer
    const slug = `${label}-${next()}`
    const created = yield* server.organization(slug)
    const signedIn: Array<Member> = []
    for (const role of roles) {
      const added = yield* addMember({ id: created.id, slug, name: slug }, role, {
        email: uniqueEmail(`${slug}-${role.replace(" ", "").toLowerCase()}`)
      })
      signedIn.push({ userId: added.userId, browser: yield* signIn(server.url, added, { origin: ORIGIN, next: "/app/account" }) })
    }
    return { slug, token: created.token, members: signedIn as { [K in keyof R]: Member } }
  })

const personOf = (server: Server, token: string, personId: string) =>
  Effect.map(server.request("GET", `/person/${personId}`, { token }), (r) => expectStatus(r, 200).body as Record<string, any>)

const defineField = (server: Server, token: string, body: Record<string, unknown>) =>
  Effect.map(server.request("POST", "/custom-field", { token, body }), (r) => expectStatus(r, 200).body as Record<string, any>)

const searchTotal = (server: Server, token: string, query: Record<string, string>) =>
  Effect.map(
    server.request("GET", `/person/search?${new URLSearchParams({ ...query, includeArchived: "true" })}`, { token }),
    (r) => expectStatus(r, 200).body.total as number
  )

/** The `value` of the form field `name` on a page (entities decoded). */
const inputValue = (html: string, name: string) => {
  const tag = new RegExp(`<input[^>]*name="${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}"[^>]*>`).exec(html)?.[0]
  const value = tag === undefined ? undefined : /value="([^"]*)"/.exec(tag)?.[1]
  return value === undefined ? undefined : decodeEntities(value)
}

/** The path of a 303's `Location` (the test server's PUBLIC_BASE_URL is another origin). */
const pathOf = (reply: PageReply) => {
  expect(reply.status, textOf(reply.html).slice(0, 400)).toBe(303)
  return new URL(reply.location!, ORIGIN).pathname
}

/** A file sent with the import page's upload form (multipart/form-data), as a browser sends it. */
const upload = (browser: DashboardClient, path: string, file: { readonly name: string; readonly text: string | Uint8Array } | undefined, csrf?: string) =>
  Effect.gen(function*() {
    const token = csrf ?? (yield* browser.csrf)
    return yield* Effect.promise(async (): Promise<PageReply> => {
      const form = new FormData()
      form.append("_csrf", token)
      if (file !== undefined) form.append("file", new Blob([typeof file.text === "string" ? file.text : Uint8Array.from(file.text)], { type: "text/csv" }), file.name)
      else form.append("file", new Blob([], { type: "application/octet-stream" }), "")
      // sent whole, with its Content-Length, as browsers send a form
      const encoded = new Response(form)
      const response = await fetch(browser.url + path, {
        method: "POST",
        body: new Uint8Array(await encoded.arrayBuffer()),
        headers: {
          cookie: `${SESSION_COOKIE}=${browser.session()}`,
          origin: ORIGIN,
          "content-type": encoded.headers.get("content-type")!
        },
        redirect: "manual"
      })
      return { status: response.status, html: await response.text(), location: response.headers.get("location"), headers: response.headers }
    })
  })

/** Every field of the edit form as a browser posts it: the page's values, with `changes` over them. */
const editForm = (page: string, changes: ReadonlyArray<readonly [string, string]>, customNames: ReadonlyArray<string> = []) => {
  const names = ["firstName", "lastName", "email", "phone", "company", "position", "birthday", "address", "apartment", "city", "state", "country", "postalCode", "profilePicture"]
  const fields: Array<[string, string]> = [["_original", inputValue(page, "_original") ?? ""]]
  const changed = new Set(changes.map(([k]) => k))
  for (const name of [...names, ...customNames]) if (!changed.has(name)) fields.push([name, inputValue(page, name) ?? ""])
  if (!changed.has("contextNote")) fields.push(["contextNote", decodeEntities(/<textarea[^>]*name="contextNote"[^>]*>([^<]*)</.exec(page)?.[1] ?? "")])
  if (!changed.has("smsConsent")) fields.push(["smsConsent", /<select[^>]*name="smsConsent"[\s\S]*?<option[^>]*value="([^"]+)"[^>]*selected/.exec(page)?.[1] ?? "none"])
  return [...fields, ...changes.map(([k, v]) => [k, v] as [string, string])]
}

/** A contacts file of `rows` new contacts; `typo` rows get an email that is none. */
const contactsFile = (label: string, rows: number, typo: ReadonlySet<number> = new Set()) => {
  const lines = ["First name,Last name,E-mail,Phone,Company,Favourite colour,custom:Member number"]
  for (let i = 1; i <= rows; i++) {
    const email = typo.has(i) ? `${label}-${i}(at)example.org` : `${label}-${i}@example.org`
    lines.push(`Imp${i},${label},${email},+1 555 ${String(i).padStart(4, "0")},"Org ${i}, Inc.",blue,${i}000000000000000000001`)
  }
  return `${lines.join("\r\n")}\r\n`
}

/** The rows of a CSV export (header excluded). */
const exportedRows = (server: Server, token: string, archived = false) =>
  Effect.map(server.request("GET", `/person/export${archived ? "?archived=true" : ""}`, { token }), (r) => {
    expectStatus(r, 200)
    return r.text.split("\r\n").filter((line) => line !== "").slice(1)
  })

layer(testServer(), { excludeTestServices: true })("dashboard: contacts", (it) => {
  describe("creating and editing", () => {
    it.effect("a contact made and edited through the forms is the API's: every field, custom fields of each type, a big number digit for digit", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { members: [member], token } = yield* organization("edit", ["Team Member"])
        const notes = yield* defineField(server, token, { fieldName: "Notes", fieldType: "text" })
        const number = yield* defineField(server, token, { fieldName: "Member number", fieldType: "number" })
        const size = yield* defineField(server, token, {
          fieldName: "Size",
          fieldType: "multiselect",
          options: [{ value: "S", color: "#2563eb" }, { value: "M", color: "#16a34a" }, { value: "L", color: "#d97706" }]
        })
        const [s, m, l] = size["options"] as Array<{ id: string; value: string }>

        const form = yield* member.browser.get("/app/contacts/new")
        expect(form.status).toBe(200)
        for (const label of ["First name", "Last name", "Email", "Phone", "Company", "Position", "Birthday", "Address", "City", "Postal code", "Country", "Note", "Profile picture"]) {
          expect(textOf(form.html)).toContain(label)
        }
        const email = uniqueEmail("grace")
        const created = yield* member.browser.post("/app/contacts/new", {
          firstName: " Grace ",
          lastName: "Hopper",
          email,
          phone: "+1 555 0100",
          company: "US Navy",
          position: "Rear Admiral",
          birthday: "1906-12-09",
          address: "1 Navy Way",
          apartment: "Suite 2",
          city: "Arlington",
          state: "VA",
          country: "US",
          postalCode: "22202",
          contextNote: "Found the first bug.\r\nLoves COBOL.",
          profilePicture: "https://example.com/grace.png"
        })
        const path = pathOf(created)
        const personId = path.split("/").pop()!
        expect(path).toBe(`/app/contacts/${personId}`)
        const shown = yield* member.browser.get(path)
        expect(textOf(shown.html)).toContain("Contact Grace Hopper created.")
        expect(yield* personOf(server, token, personId)).toMatchObject({
          firstName: "Grace",
          lastName: "Hopper",
          email,
          phone: "+1 555 0100",
          company: "US Navy",
          position: "Rear Admiral",
          birthday: "1906-12-09",
          address: "1 Navy Way",
          apartment: "Suite 2",
          city: "Arlington",
          state: "VA",
          country: "US",
          postalCode: "22202",
          contextNote: "Found the first bug.\nLoves COBOL.",
          profilePicture: "https://example.com/grace.png",
          archived: false,
          customFields: {}
        })

        const big = "123456789012345678901234567890.000000000000000000001"
        const edit = yield* member.browser.get(`${path}/edit`)
        expect(edit.status).toBe(200)
        const saved = yield* member.browser.post(`${path}/edit`, editForm(edit.html, [
          ["company", "Yale"],
          ["phone", "+1 555 0199"],
          ["smsConsent", "optedOut"],
          [`cf.${notes["fieldId"]}`, "Amazing Grace"],
          [`cf.${number["fieldId"]}`, big],
          [`cf.${size["fieldId"]}`, s!.id],
          [`cf.${size["fieldId"]}`, l!.id]
        ]))
        expect(pathOf(saved)).toBe(path)
        const after = yield* personOf(server, token, personId)
        expect(after).toMatchObject({ company: "Yale", phone: "+1 555 0199", position: "Rear Admiral" })
        expect(after["customFields"]).toEqual({ Notes: "Amazing Grace", "Member number": big, Size: ["S", "L"] })
        const page = textOf((yield* member.browser.get(path)).html)
        expect(page).toContain("Saved Grace Hopper: phone, company, SMS consent, Notes, Member number, Size.")
        expect(page).toContain(big)
        expect(page).toContain("SMS: Opted out")

        // the same change through the API stores the same thing
        const twin = yield* createPerson(server, { email: uniqueEmail("twin") }, token)
        expectStatus(
          yield* server.request("PUT", `/person/${twin}`, {
            token,
            body: {
              personId: twin,
              customFields: [{ fieldId: notes["fieldId"], value: "Amazing Grace" }, { fieldId: number["fieldId"], value: big }],
              customFieldMultiselect: [{ fieldId: size["fieldId"], value: "S" }, { fieldId: size["fieldId"], value: "L" }]
            }
          }),
          200
        )
        const strip = (p: Record<string, any>) => (p["customFieldsDetailed"] as Array<Record<string, any>>).map(({ valueId: _, ...rest }) => rest)
        expect(strip(after)).toEqual(strip(yield* personOf(server, token, twin)))

        // unticking every option clears the field; an untouched form saves nothing
        const scalars = [`cf.${notes["fieldId"]}`, `cf.${number["fieldId"]}`]
        const again = yield* member.browser.get(`${path}/edit`)
        expect(pathOf(yield* member.browser.post(`${path}/edit`, editForm(again.html, [], scalars)))).toBe(path)
        expect(textOf((yield* member.browser.get(path)).html)).toContain("Saved Grace Hopper: Size.")
        expect((yield* personOf(server, token, personId))["customFields"]).toEqual({ Notes: "Amazing Grace", "Member number": big })
        const unchanged = yield* member.browser.get(`${path}/edit`)
        expect(pathOf(yield* member.browser.post(`${path}/edit`, editForm(unchanged.html, [], scalars)))).toBe(path)
        expect(textOf((yield* member.browser.get(path)).html)).toContain("Nothing to save: Grace Hopper is unchanged.")
        expect(m).toBeDefined()
      }))

    it.effect("bad input re-renders the form with each error at its field and what was typed, and changes nothing", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { members: [member], token } = yield* organization("bad", ["Team Member"])
        const number = yield* defineField(server, token, { fieldName: "Score", fieldType: "number" })
        const refusedNew = yield* member.browser.post("/app/contacts/new", { firstName: "", lastName: "Kept", email: "not an email", birthday: "2001-02-30" })
        expect(refusedNew.status).toBe(400)
        const newText = textOf(refusedNew.html)
        expect(newText).toContain("First name must be filled in")
        expect(newText).toContain("Email must be an email address")
        expect(newText).toContain("Birthday must be a real calendar date")
        expect(inputValue(refusedNew.html, "lastName")).toBe("Kept")
        expect(inputValue(refusedNew.html, "email")).toBe("not an email")

        const email = uniqueEmail("taken")
        yield* createPerson(server, { email, firstName: "Alan", lastName: "Turing" }, token)
        const duplicate = yield* member.browser.post("/app/contacts/new", { firstName: "Other", lastName: "Person", email: email.toUpperCase() })
        expect(duplicate.status).toBe(409)
        expect(textOf(duplicate.html)).toContain("Email belongs to another active contact")
        expect(textOf(duplicate.html)).toContain("The email belongs to Alan Turing")
        expect(yield* searchTotal(server, token, { query: "Other Person" })).toBe(0)

        const personId = yield* createPerson(server, { email: uniqueEmail("kept"), birthday: "1990-01-01" }, token)
        const before = yield* personOf(server, token, personId)
        const edit = yield* member.browser.get(`/app/contacts/${personId}/edit`)
        const refused = yield* member.browser.post(`/app/contacts/${personId}/edit`, editForm(edit.html, [
          ["email", "nope"],
          ["birthday", ""],
          ["company", "Typed but not saved"],
          [`cf.${number["fieldId"]}`, "12a"]
        ]))
        expect(refused.status).toBe(400)
        const text = textOf(refused.html)
        expect(text).toContain("Email must be an email address")
        expect(text).toContain("Birthday can be changed, but not removed")
        expect(inputValue(refused.html, "company")).toBe("Typed but not saved")
        expect(inputValue(refused.html, `cf.${number["fieldId"]}`)).toBe("12a")
        // the number alone: the service's own check, at its field
        const numberOnly = yield* member.browser.post(`/app/contacts/${personId}/edit`, editForm(edit.html, [[`cf.${number["fieldId"]}`, "12a"]]))
        expect(numberOnly.status).toBe(400)
        expect(textOf(numberOnly.html)).toContain("Score takes a number")
        expect(numberOnly.html).toContain(`id="f-cf.${number["fieldId"]}-error"`)
        expect(yield* personOf(server, token, personId)).toEqual(before)
      }))
  })

  describe("custom fields", () => {
    it.effect("an Admin defines text, number and multiselect fields (options one per line, colours shown); a duplicate name is refused at its field (409)", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { members: [admin], token } = yield* organization("fields", ["Admin"])
        const empty = yield* admin.browser.get("/app/contacts/fields")
        expect(textOf(empty.html)).toContain("No custom fields yet")
        expect(pathOf(yield* admin.browser.post("/app/contacts/fields", { fieldName: "Size", fieldType: "multiselect", options: "Small #2563eb\r\nMedium\r\n\r\nLarge #D97706" })))
          .toBe("/app/contacts/fields")
        expect(pathOf(yield* admin.browser.post("/app/contacts/fields", { fieldName: "Member number", fieldType: "number", options: "" }))).toBe("/app/contacts/fields")
        expect(pathOf(yield* admin.browser.post("/app/contacts/fields", { fieldName: "Notes", fieldType: "text", options: "" }))).toBe("/app/contacts/fields")
        const defined = expectStatus(yield* server.request("GET", "/custom-field", { token }), 200).body.customFields as Array<Record<string, any>>
        expect(defined.map((d) => [d["fieldName"], d["fieldType"]])).toEqual([["Size", "multiselect"], ["Member number", "number"], ["Notes", "text"]])
        expect(defined[0]!["options"].map((o: Record<string, string>) => [o["value"], o["color"]])).toEqual([
          ["Small", "#2563eb"],
          ["Medium", "#16a34a"],
          ["Large", "#d97706"]
        ])
        const page = yield* admin.browser.get("/app/contacts/fields")
        expect(textOf(page.html)).toContain("Custom field “Notes” (text) created.")
        expect(textOf(page.html)).toContain("Small #2563eb")
        expect(page.html).toContain(`fill="#d97706"`)

        const duplicate = yield* admin.browser.post("/app/contacts/fields", { fieldName: "size", fieldType: "text", options: "" })
        expect(duplicate.status).toBe(409)
        expect(textOf(duplicate.html)).toContain("Name: a custom field named “size” exists already")
        expect(duplicate.html).toContain(`id="f-fieldName-error"`)
        expect(inputValue(duplicate.html, "fieldName")).toBe("size")
        const refused = yield* admin.browser.post("/app/contacts/fields", { fieldName: "", fieldType: "text", options: "A" })
        expect(refused.status).toBe(400)
        expect(textOf(refused.html)).toContain("Name must be filled in")
        const optionless = yield* admin.browser.post("/app/contacts/fields", { fieldName: "Tags", fieldType: "multiselect", options: "" })
        expect(optionless.status).toBe(400)
        expect(textOf(optionless.html)).toContain("Options: a multiselect field needs at least one option")
        expect(expectStatus(yield* server.request("GET", "/custom-field", { token }), 200).body.customFields).toHaveLength(3)
      }))
  })

  describe("archive and unarchive", () => {
    it.effect("archives after a confirmation, lists archived contacts apart, and unarchiving says why it cannot when the email is taken (409)", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { members: [member], token } = yield* organization("arch", ["Team Member"])
        const email = uniqueEmail("ada")
        const personId = yield* createPerson(server, { email, firstName: "Ada", lastName: "Archived" }, token)
        const path = `/app/contacts/${personId}`

        const confirm = yield* member.browser.post(`${path}/archive`)
        expect(confirm.status).toBe(200)
        expect(textOf(confirm.html)).toContain("Archive Ada Archived?")
        expect((yield* personOf(server, token, personId))["archived"]).toBe(false)
        expect(pathOf(yield* member.browser.post(`${path}/archive`, { confirm: "yes" }))).toBe(path)
        expect((yield* personOf(server, token, personId))["archived"]).toBe(true)
        const page = textOf((yield* member.browser.get(path)).html)
        expect(page).toContain("Ada Archived archived.")
        expect(page).toContain("This contact is archived.")

        expect(textOf((yield* member.browser.get("/app/contacts")).html)).not.toContain("Ada Archived")
        const archivedList = textOf((yield* member.browser.get("/app/contacts?archived=1")).html)
        expect(archivedList).toContain("Ada Archived")
        expect(archivedList).toContain("Archived: 1 archived contact")

        const holder = yield* createPerson(server, { email: email.toUpperCase(), firstName: "Holder", lastName: "Now" }, token)
        const refused = yield* member.browser.post(`${path}/unarchive`)
        expect(refused.status).toBe(409)
        expect(textOf(refused.html)).toContain(`Ada Archived cannot be unarchived: Holder Now has the email ${email} now`)
        expect((yield* personOf(server, token, personId))["archived"]).toBe(true)

        expectStatus(yield* server.request("DELETE", `/person/${holder}`, { token }), 200)
        expect(pathOf(yield* member.browser.post(`${path}/unarchive`))).toBe(path)
        expect((yield* personOf(server, token, personId))["archived"]).toBe(false)
        expect(textOf((yield* member.browser.get(path)).html)).toContain("Ada Archived is back in the contact list.")
      }))
  })

  describe("search", () => {
    it.effect("finds names by substring and emails exactly, as GET /person/search does, with pages", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { members: [viewer], token } = yield* organization("search", ["Viewer"])
        const graceEmail = uniqueEmail("grace")
        yield* createPerson(server, { email: graceEmail, firstName: "Grace", lastName: "Hopper" }, token)
        yield* createPerson(server, { email: uniqueEmail("alan"), firstName: "Alan", lastName: "Turing" }, token)
        for (let i = 0; i < 27; i++) yield* createPerson(server, { email: uniqueEmail("many"), firstName: `Many${i}`, lastName: "Pager" }, token)

        const byName = textOf((yield* viewer.browser.get("/app/contacts?q=hopp")).html)
        expect(byName).toContain("Grace Hopper")
        expect(byName).not.toContain("Alan Turing")
        expect(byName).toContain("1 contact matching “hopp”")
        const byEmail = textOf((yield* viewer.browser.get(`/app/contacts?q=${encodeURIComponent(graceEmail.toUpperCase())}`)).html)
        expect(byEmail).toContain("Grace Hopper")
        expect(byEmail).toContain("with the email")
        const partialEmail = textOf((yield* viewer.browser.get(`/app/contacts?q=${encodeURIComponent(graceEmail.slice(1))}`)).html)
        expect(partialEmail).toContain("No contacts match")

        const first = yield* viewer.browser.get("/app/contacts?q=pager")
        expect(textOf(first.html)).toContain(`27 contacts matching “pager”`)
        expect(textOf(first.html)).toContain("1–25 of 27 contacts")
        expect(yield* searchTotal(server, token, { query: "pager" })).toBe(27)
        const second = textOf((yield* viewer.browser.get("/app/contacts?q=pager&skip=25")).html)
        expect(second).toContain("26–27 of 27 contacts")
        expect(second).toContain("Many26 Pager")
      }))
  })

  describe("event history", () => {
    it.effect("lists the events a contact is on with RSVP, history and check-in; payments only from Team Member up", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { members: [teamMember, viewer], token } = yield* organization("hist", ["Team Member", "Viewer"])
        const personId = yield* createPerson(server, { email: uniqueEmail("guest"), firstName: "Paying", lastName: "Guest" }, token)
        const gala = yield* createEvent(server, { name: "Ticketed Gala", ticketingEnabled: true, timezone: "Europe/Paris" }, token)
        const free = yield* createEvent(server, { name: "Free Talk" }, token)
        for (const event of [gala, free]) {
          expectStatus(yield* server.request("POST", `/event/${event["eventId"]}/guestlist`, { token, body: { guests: [{ personId }] } }), 200)
        }
        expectStatus(
          yield* server.request("PUT", `/event/${gala["eventId"]}/guestlist`, {
            token,
            body: { guests: [{ personId, rsvpStatus: "Accepted", attendanceStatus: "Attended" }] }
          }),
          200
        )
        expectStatus(
          yield* server.request("POST", `/event/${gala["eventId"]}/purchase`, {
            token,
            body: { items: [{ personId, type: "TICKET", subtotal: 2500, tax: 250, serviceFee: 100 }, { personId, type: "DONATION", subtotal: 1000, tax: 0, serviceFee: 0 }] }
          }),
          200
        )
        const path = `/app/contacts/${personId}`
        const full = yield* teamMember.browser.get(path)
        expect(full.status).toBe(200)
        const text = textOf(full.html)
        expect(text).toContain("Events (2)")
        expect(text).toContain("Ticketed Gala")
        expect(text).toContain("Free Talk")
        expect(text).toContain("Accepted")
        expect(text).toContain("Checked in")
        expect(text).toContain("History of Ticketed Gala (2)")
        expect(text).toContain("Payment")
        expect(text).toContain("Paid")
        expect(text).toContain("Tickets 28.50")
        expect(text).toContain("Donation 10.00")
        expect(text).toContain("No ticketing")
        expect(full.html).toContain(`href="/app/events/${gala["eventId"]}/guests/${personId}"`)

        const limited = yield* viewer.browser.get(path)
        expect(limited.status).toBe(200)
        const seen = textOf(limited.html)
        expect(seen).toContain("Ticketed Gala")
        expect(seen).toContain("Accepted")
        expect(seen).toContain("Checked in")
        for (const hidden of ["Payment", "Paid", "28.50", "Donation", "No ticketing"]) expect(seen).not.toContain(hidden)
      }))
  })

  describe("roles and organizations", () => {
    it.effect("a Viewer reads contacts and fields but sees no write controls, and every forged write gets 403 and changes nothing", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { members: [viewer, teamMember], token } = yield* organization("view", ["Viewer", "Team Member"])
        const personId = yield* createPerson(server, { email: uniqueEmail("read"), firstName: "Read", lastName: "Only" }, token)
        const before = yield* personOf(server, token, personId)

        const list = yield* viewer.browser.get("/app/contacts")
        expect(list.status).toBe(200)
        expect(textOf(list.html)).toContain("Read Only")
        expect(textOf(list.html)).toContain("Export CSV")
        for (const control of ["New contact", "Import CSV"]) expect(textOf(list.html)).not.toContain(control)
        const page = yield* viewer.browser.get(`/app/contacts/${personId}`)
        expect(page.status).toBe(200)
        expect(page.html).not.toContain(`/app/contacts/${personId}/edit`)
        expect(page.html).not.toContain(`/app/contacts/${personId}/archive`)
        const fields = yield* viewer.browser.get("/app/contacts/fields")
        expect(fields.status).toBe(200)
        expect(textOf(fields.html)).not.toContain("New custom field")
        expect(textOf(fields.html)).toContain("Only Admins can define custom fields.")

        for (const path of ["/app/contacts/new", `/app/contacts/${personId}/edit`, "/app/contacts/import"]) {
          expect((yield* viewer.browser.get(path)).status, path).toBe(403)
        }
        const forged: Array<readonly [string, Record<string, string>]> = [
          ["/app/contacts/new", { firstName: "Forged", lastName: "Person", email: uniqueEmail("forged") }],
          [`/app/contacts/${personId}/edit`, { firstName: "Forged" }],
          [`/app/contacts/${personId}/archive`, { confirm: "yes" }],
          [`/app/contacts/${personId}/unarchive`, {}],
          ["/app/contacts/fields", { fieldName: "Forged", fieldType: "text" }]
        ]
        for (const [path, fields] of forged) expect((yield* viewer.browser.post(path, fields)).status, path).toBe(403)
        expect((yield* upload(viewer.browser, "/app/contacts/import", { name: "x.csv", text: contactsFile("forged", 2) })).status).toBe(403)
        // a Team Member writes contacts but does not define custom fields
        expect((yield* teamMember.browser.post("/app/contacts/fields", { fieldName: "Forged", fieldType: "text" })).status).toBe(403)

        expect(yield* personOf(server, token, personId)).toEqual(before)
        expect(yield* searchTotal(server, token, { query: "Forged" })).toBe(0)
        expect((expectStatus(yield* server.request("GET", "/custom-field", { token }), 200).body.customFields as Array<unknown>)).toEqual([])
      }))

    it.effect("another organization's contact is an unknown one: 404 on every page and action", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { members: [member] } = yield* organization("mine", ["Admin"])
        const other = yield* organization("theirs", [])
        const theirs = yield* createPerson(server, { email: uniqueEmail("theirs"), firstName: "Not", lastName: "Yours" }, other.token)
        const before = yield* personOf(server, other.token, theirs)
        for (const path of [`/app/contacts/${theirs}`, `/app/contacts/${theirs}/edit`]) {
          const reply = yield* member.browser.get(path)
          expect(reply.status, path).toBe(404)
          expect(reply.html).not.toContain("Not Yours")
        }
        for (const path of [`/app/contacts/${theirs}/edit`, `/app/contacts/${theirs}/archive`, `/app/contacts/${theirs}/unarchive`]) {
          expect((yield* member.browser.post(path, { confirm: "yes", firstName: "Mine" })).status, path).toBe(404)
        }
        expect(yield* personOf(server, other.token, theirs)).toEqual(before)
      }))
  })

  describe("stored text", () => {
    it.effect("markup in every field, custom field and option stays text on every page", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { members: [member], token } = yield* organization("xss", ["Admin"])
        const evil = "<script>alert(1)</script>"
        const field = yield* defineField(server, token, { fieldName: `<img src=x onerror=alert(2)>`, fieldType: "text" })
        const multi = yield* defineField(server, token, {
          fieldName: `Tags"><script>alert(3)</script>`,
          fieldType: "multiselect",
          options: [{ value: `<svg onload=alert(4)>`, color: "#123456" }]
        })
        const personId = yield* createPerson(server, {
          firstName: evil,
          lastName: `<b onmouseover=alert(5)>x</b>`,
          email: `<i>x</i>@evil.example`,
          phone: evil,
          company: evil,
          position: evil,
          address: evil,
          apartment: evil,
          city: evil,
          state: evil,
          country: evil,
          postalCode: "<u>1</u>",
          contextNote: evil,
          profilePicture: `https://example.com/"><script>alert(6)</script>`
        }, token)
        expectStatus(
          yield* server.request("PUT", `/person/${personId}`, {
            token,
            body: {
              personId,
              customFields: [{ fieldId: field["fieldId"], value: evil }],
              customFieldMultiselect: [{ fieldId: multi["fieldId"], value: `<svg onload=alert(4)>` }]
            }
          }),
          200
        )
        const csv = `email,firstName,lastName,${evil}\r\n<i>y</i>@evil.example,${evil},"<img src=x onerror=alert(7)>",${evil}\r\n`
        const uploaded = yield* upload(member.browser, "/app/contacts/import", { name: `${evil}.csv`, text: csv })
        const preview = pathOf(uploaded)
        const pages = [
          "/app/contacts",
          `/app/contacts?q=${encodeURIComponent(evil)}`,
          `/app/contacts/${personId}`,
          `/app/contacts/${personId}/edit`,
          "/app/contacts/fields",
          "/app/contacts/import",
          preview
        ]
        for (const path of pages) {
          const reply = yield* member.browser.get(path)
          expect(reply.status, path).toBe(200)
          for (const markup of ["<script>alert", "<img src=x", "<svg onload", "<b onmouseover", "<i>x</i>", "<i>y</i>", "<u>1</u>", "\"><script>"]) {
            expect(reply.html, `${path}: ${markup}`).not.toContain(markup)
          }
        }
        const contact = (yield* member.browser.get(`/app/contacts/${personId}`)).html
        expect(contact).toContain("<dd>&lt;script>alert(1)&lt;/script></dd>")
        expect(textOf(contact)).toContain(`<svg onload=alert(4)>`)
      }))
  })

  describe("CSV import", () => {
    it.effect("5,000 contacts with a typo: the preview lists the row's error and writes nothing; the fixed file imports all 5,000", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { members: [member, colleague], token } = yield* organization("import", ["Team Member", "Team Member"])
        yield* defineField(server, token, { fieldName: "Member number", fieldType: "number" })
        const label = `imp${next()}`

        const form = yield* member.browser.get("/app/contacts/import")
        expect(form.status).toBe(200)
        expect(form.html).toContain(`enctype="multipart/form-data"`)
        expect(form.html).toContain(`accept=".csv,text/csv"`)
        expect(textOf(form.html)).toContain("custom:Member number")

        const typo = yield* upload(member.browser, "/app/contacts/import", { name: "contacts.csv", text: contactsFile(label, 5_000, new Set([2_345])) })
        const draft = pathOf(typo)
        expect(draft).toMatch(/^\/app\/contacts\/import\/[A-Za-z0-9_-]{32,}$/)
        const preview = yield* member.browser.get(draft)
        expect(preview.status).toBe(200)
        const text = textOf(preview.html)
        expect(text).toContain("Check contacts.csv before anything is written.")
        expect(text).toContain("Row 2,345 E-mail must be an email address")
        expect(text).toMatch(/5,000 rows read 4,999 new 0 updated 0 unchanged 1 error/)
        expect(text).toContain("Favourite colour Ignored: unknown column")
        expect(text).toContain("E-mail → Email")
        expect(text).toContain("custom:Member number → Custom field “Member number” (number)")
        expect(text).toContain("First 10 rows, as they will be imported")
        expect(text).toContain("10000000000000000000001")
        expect(preview.html).toMatch(/<button type="button" class="big" disabled[^>]*>Import 5,000 contacts<\/button>/)
        expect(text).toContain("Fix the error listed below in your file, then upload it again")
        // nothing written, even by a forged confirmation
        const forced = yield* member.browser.post(draft)
        expect(forced.status).toBe(422)
        expect(textOf(forced.html)).toContain("Nothing was imported")
        expect(yield* searchTotal(server, token, { query: label })).toBe(0)
        // the draft is its uploader's only
        expect((yield* colleague.browser.get(draft)).status).toBe(404)
        expect((yield* colleague.browser.post(draft)).status).toBe(404)

        const fixed = yield* upload(member.browser, "/app/contacts/import", { name: "contacts-fixed.csv", text: contactsFile(label, 5_000) })
        const second = pathOf(fixed)
        expect(second).not.toBe(draft)
        // a new upload replaces the member's earlier one
        expect((yield* member.browser.get(draft)).status).toBe(404)
        const ready = yield* member.browser.get(second)
        expect(textOf(ready.html)).toMatch(/5,000 rows read 5,000 new 0 updated 0 unchanged 0 errors/)
        expect(yield* searchTotal(server, token, { query: label })).toBe(0)

        const imported = yield* member.browser.post(second)
        expect(pathOf(imported)).toBe("/app/contacts")
        expect(textOf((yield* member.browser.get("/app/contacts")).html)).toContain(
          "Imported 5,000 contacts from contacts-fixed.csv: 5,000 new, 0 updated, 0 unchanged."
        )
        expect(yield* searchTotal(server, token, { query: label })).toBe(5_000)
        expect(yield* exportedRows(server, token)).toHaveLength(5_000)
        const found = expectStatus(yield* server.request("GET", `/person/search?email=${label}-4321@example.org`, { token }), 200).body.persons[0]
        expect(found).toMatchObject({ firstName: "Imp4321", lastName: label, phone: "+1 555 4321", company: "Org 4321, Inc." })
        expect(found.customFields).toEqual({ "Member number": "4321000000000000000000001" })
        // the draft is gone with the import
        expect((yield* member.browser.post(second)).status).toBe(404)
      }))

    it.effect("a kept file can be discarded, and is no longer usable after an hour", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { members: [member], token } = yield* organization("drafts", ["Team Member"])
        const label = `draft${next()}`
        const first = pathOf(yield* upload(member.browser, "/app/contacts/import", { name: "a.csv", text: contactsFile(label, 3) }))
        expect(pathOf(yield* member.browser.post(`${first}/discard`))).toBe("/app/contacts/import")
        expect(textOf((yield* member.browser.get("/app/contacts/import")).html)).toContain("Import cancelled: the uploaded file was discarded")
        expect((yield* member.browser.get(first)).status).toBe(404)

        const second = pathOf(yield* upload(member.browser, "/app/contacts/import", { name: "b.csv", text: contactsFile(label, 3) }))
        yield* Effect.promise(() =>
          queryDatabase(server.databaseEnv, "UPDATE import_drafts SET created_at = ? WHERE public_id = ?", [
            new Date(Date.now() - 61 * 60_000).toISOString(),
            second.split("/").pop()
          ])
        )
        const gone = yield* member.browser.get(second)
        expect(gone.status).toBe(404)
        expect(textOf(gone.html)).toContain("That upload is not kept any more")
        expect((yield* member.browser.post(second)).status).toBe(404)
        expect(yield* searchTotal(server, token, { query: label })).toBe(0)
      }))

    it.effect("refuses what cannot be imported at the upload, keeping nothing: no file, not UTF-8, no email column, a forged token", () =>
      Effect.gen(function*() {
        const { members: [member] } = yield* organization("refuse", ["Team Member"])
        const none = yield* upload(member.browser, "/app/contacts/import", undefined)
        expect(none.status).toBe(400)
        expect(textOf(none.html)).toContain("Choose a CSV file to upload.")
        const latin1 = yield* upload(member.browser, "/app/contacts/import", { name: "latin1.csv", text: new Uint8Array([...Buffer.from("email,firstName\r\nx@y.io,Jos"), 0xe9, 0x0d, 0x0a]) })
        expect(latin1.status).toBe(400)
        expect(textOf(latin1.html)).toContain("latin1.csv: The CSV is not valid UTF-8 (line 2")
        const noEmail = yield* upload(member.browser, "/app/contacts/import", { name: "names.csv", text: "firstName,lastName\r\nAda,Lovelace\r\n" })
        expect(noEmail.status).toBe(400)
        expect(textOf(noEmail.html)).toContain("names.csv cannot be imported: The CSV has no email column")
        const forged = yield* upload(member.browser, "/app/contacts/import", { name: "ok.csv", text: "email\r\na@b.io\r\n" }, "not-the-token")
        expect(forged.status).toBe(403)
      }))
  })

  describe("uploads past the API's 1 MiB body limit", () => {
    it.effect("a 3 MiB file previews like any other; a file over 10 MiB is refused on the upload page (413), nothing kept", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { members: [member], token } = yield* organization("big", ["Team Member"])
        const label = `big${next()}`
        const text = contactsFile(label, 30_000)
        expect(Buffer.byteLength(text)).toBeGreaterThan(3 * 1024 * 1024)
        const preview = yield* member.browser.get(pathOf(yield* upload(member.browser, "/app/contacts/import", { name: "big.csv", text })))
        expect(textOf(preview.html)).toMatch(/30,000 rows read 30,000 new 0 updated 0 unchanged 0 errors/)
        expect(yield* searchTotal(server, token, { query: label })).toBe(0)

        const huge = yield* upload(member.browser, "/app/contacts/import", { name: "huge.csv", text: "email\r\n" + "x".repeat(10 * 1024 * 1024 + 1) })
        expect(huge.status).toBe(413)
        expect(huge.headers.get("content-type")).toMatch(/^text\/html/)
        expect(textOf(huge.html)).toContain("The file is over 10 MiB")
      }))
  })

  describe("CSV export", () => {
    it.effect("the export button answers the API's file, with its headers, active or archived following the filter", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { members: [viewer], slug, token } = yield* organization("export", ["Viewer"])
        yield* createPerson(server, { email: uniqueEmail("active"), firstName: "Active", lastName: "One" }, token)
        const gone = yield* createPerson(server, { email: uniqueEmail("gone"), firstName: "=cmd", lastName: "Archived" }, token)
        expectStatus(yield* server.request("DELETE", `/person/${gone}`, { token }), 200)
        const list = yield* viewer.browser.get("/app/contacts")
        expect(list.html).toContain(`href="/app/contacts/export"`)
        expect((yield* viewer.browser.get("/app/contacts?archived=1")).html).toContain(`href="/app/contacts/export?archived=true"`)

        for (const archived of [false, true]) {
          const page = yield* viewer.browser.get(`/app/contacts/export${archived ? "?archived=true" : ""}`)
          expect(page.status).toBe(200)
          expect(page.headers.get("content-type")).toBe("text/csv; charset=utf-8")
          expect(page.headers.get("content-disposition")).toMatch(new RegExp(`^attachment; filename="contacts-${slug}-\\d{4}-\\d{2}-\\d{2}\\.csv"$`))
          const api = yield* server.request("GET", `/person/export${archived ? "?archived=true" : ""}`, { token })
          expect(page.html).toBe(api.text)
          expect(page.headers.get("content-disposition")).toBe(api.headers.get("content-disposition"))
        }
        const archivedFile = (yield* viewer.browser.get("/app/contacts/export?archived=true")).html
        expect(archivedFile).toContain("'=cmd")
        expect(archivedFile).not.toContain("Active")
      }))
  })
})
