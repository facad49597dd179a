/**
 * `/openapi.json` as clients in other languages use it: every operation has a stable, unique
 * `operationId` (what generators turn into method names), a summary, and every status it can answer
 * with the error body it really has; and a mainstream generator (openapi-typescript) turns the live
 * document into types that a typed client compiles against (and that a wrong field does not),
 * checked with the TypeScript compiler and then run against the server.
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import openapiTS, { astToString } from "openapi-typescript"
import ts from "typescript"
import { API_TOKEN, TestServer, testServer } from "../support/TestServer.js"

type Json = Record<string, any>

/**
 * Every operation's id, pinned: generated clients name their methods after them, so none may change
 * when the code is refactored. An operation added later needs an id of the same `<group>.<name>`
 * form (see the last test); add it here once it is published.
 */
const OPERATION_IDS: Record<string, string> = {
  "GET /healthz": "ops.healthz",
  "GET /readyz": "ops.readyz",
  "POST /login": "auth.login",
  "GET /me": "auth.me",
  "POST /member": "organization.addMember",
  "GET /member": "organization.members",
  "PATCH /member/{userId}": "organization.changeMemberRole",
  "DELETE /member/{userId}": "organization.removeMember",
  "DELETE /member/invitations/{invitationId}": "organization.revokeInvitation",
  "GET /member/invitations/{token}": "organization.invitation",
  "POST /member/invitations/{token}/accept": "organization.acceptInvitation",
  "POST /api-token": "organization.createToken",
  "GET /api-token": "organization.tokens",
  "DELETE /api-token/{tokenId}": "organization.revokeToken",
  "GET /person": "persons.list",
  "GET /changes": "changes.list",
  "POST /person": "persons.create",
  "GET /person/search": "persons.search",
  "GET /person/export": "persons.exportCsv",
  "POST /person/import": "persons.importCsv",
  "GET /person/{id}": "persons.get",
  "PUT /person/{id}": "persons.update",
  "DELETE /person/{id}": "persons.archive",
  "PUT /persons": "persons.bulkUpdate",
  "POST /person/{id}/unarchive": "persons.unarchive",
  "POST /custom-field": "customFields.create",
  "GET /custom-field": "customFields.list",
  "GET /event": "events.list",
  "GET /events": "events.listAlias",
  "POST /event": "events.create",
  "GET /event/{id}": "events.get",
  "PATCH /event/{id}": "events.update",
  "GET /event/{id}/guestlist": "guests.list",
  "GET /event/{id}/guestlist/search": "guests.search",
  "GET /event/{id}/guestlist/export": "guests.exportCsv",
  "POST /event/{id}/guestlist/import": "guests.importCsv",
  "POST /event/{id}/guestlist": "guests.add",
  "PUT /event/{id}/guestlist": "guests.update",
  "DELETE /event/{id}/guestlist": "guests.remove",
  "POST /event/{id}/purchase": "payments.purchase",
  "POST /event/{id}/purchase/{purchaseId}/refund": "payments.refund",
  "POST /event/{id}/purchase/{purchaseId}/dispute": "payments.dispute",
  "POST /webhook": "webhooks.register",
  "DELETE /webhook": "webhooks.unregister",
  "GET /webhook": "webhooks.sample",
  "POST /webhook/test": "webhooks.test",
  "GET /webhook/deliveries": "webhooks.deliveries",
  "POST /webhook/deliveries/{deliveryId}/retry": "webhooks.retry",
  "POST /event/{id}/invitations": "invitations.send",
  "GET /event/{id}/invitations": "invitations.list",
  "GET /event/{id}/calendar.ics": "calendar.eventCalendar"
}

/** The `code` an error body of each status carries (some statuses have a second, more specific one). */
const CODES: Record<string, ReadonlyArray<string>> = {
  "400": ["invalid_request"],
  "401": ["unauthorized"],
  "403": ["forbidden"],
  "404": ["not_found"],
  "409": ["conflict", "email_not_configured"],
  "413": ["payload_too_large"],
  "422": ["idempotency_key_reused", "import_rejected"],
  "410": ["cursor_expired"],
  "429": ["rate_limited"],
  "500": ["internal"],
  "503": ["unavailable"]
}

/** The operations that answer without the rate limit (operations endpoints). */
const UNLIMITED = new Set(["ops.healthz", "ops.readyz"])
/** Writes whose answer holds a secret shown once: they take no Idempotency-Key. */
const NO_IDEMPOTENCY = new Set(["auth.login", "organization.createToken"])

interface Operation {
  readonly key: string
  readonly method: string
  readonly path: string
  readonly op: Json
}

const operationsOf = (spec: Json): ReadonlyArray<Operation> =>
  Object.entries(spec.paths as Json).flatMap(([path, item]) =>
    Object.entries(item as Json).map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, method, path, op: op as Json })))

const resolve = (spec: Json, schema: Json): Json => {
  const ref = schema["$ref"] as string | undefined
  return ref === undefined ? schema : resolve(spec, spec.components.schemas[ref.replace("#/components/schemas/", "")])
}

/** The `code` values an error response's schema allows. */
const codesOf = (spec: Json, response: Json): ReadonlyArray<string> => {
  const schema = resolve(spec, response.content?.["application/json"]?.schema ?? {})
  const alternatives: ReadonlyArray<Json> = schema.anyOf ?? [schema]
  return alternatives.flatMap((alternative) => {
    const object = resolve(spec, alternative)
    expect(object.required, JSON.stringify(object)).toEqual(expect.arrayContaining(["message", "code"]))
    expect(object.properties.message).toMatchObject({ type: "string" })
    return object.properties.code.enum as ReadonlyArray<string>
  })
}

const fetchSpec = Effect.gen(function*() {
  const server = yield* TestServer
  const reply = yield* server.request("GET", "/openapi.json", { token: null })
  expect(reply.status).toBe(200)
  return reply.body as Json
})

/** A scratch folder for one test's files. */
const scratch = Effect.acquireRelease(
  Effect.sync(() => mkdtempSync(join(tmpdir(), "convene-openapi-"))),
  (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
)

/** Type-checks `files` (names in `dir`); answers each diagnostic as `file:line message`. */
const typeCheck = (dir: string, files: ReadonlyArray<string>): ReadonlyArray<string> => {
  const program = ts.createProgram(files.map((f) => join(dir, f)), {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ["lib.es2022.d.ts", "lib.dom.d.ts"],
    types: [],
    // the files checked are .ts; the libraries' own .d.ts files are not this test's subject
    // (checking lib.dom.d.ts again for each program took most of the time)
    skipLibCheck: true,
    exactOptionalPropertyTypes: true,
    noUncheckedIndexedAccess: true
  })
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const where = d.file === undefined || d.start === undefined
      ? ""
      : `${d.file.fileName.slice(dir.length + 1)}:${d.file.getLineAndCharacterOfPosition(d.start).line + 1} `
    return where + ts.flattenDiagnosticMessageText(d.messageText, "\n")
  })
}

/**
 * A client as an integrator would write it over the generated types: one typed `fetch` wrapper whose
 * path, path parameters, body and answer all come from `paths`.
 */
const CLIENT_WRAPPER = `
import type { components, paths } from "./api.js"

type Method = "get" | "post" | "put" | "patch" | "delete"
type JsonOf<T> = T extends { content: { "application/json": infer B } } ? B : never
type Operation<P extends keyof paths, M extends Method> = paths[P][M] & {}
type Answer<O> = O extends { responses: infer R }
  ? JsonOf<R[Extract<keyof R, 200 | 201 | 202>]>
  : never
type Body<O> = O extends { requestBody: infer B } ? JsonOf<B> : undefined
type PathParams<O> = O extends { parameters: { path: infer P } } ? (P extends undefined ? {} : P) : {}

export type Schemas = components["schemas"]

export const call = async <P extends keyof paths, M extends Method>(
  base: string,
  token: string,
  method: M,
  path: P,
  options: { readonly params: PathParams<Operation<P, M>>; readonly body?: Body<Operation<P, M>> }
): Promise<Answer<Operation<P, M>>> => {
  const url = String(path).replace(/\\{(\\w+)\\}/g, (_, name: string) =>
    encodeURIComponent(String((options.params as Record<string, unknown>)[name])))
  const response = await fetch(base + url, {
    method: method.toUpperCase(),
    headers: { "x-api-key": token, "content-type": "application/json" },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) })
  })
  if (!response.ok) throw new Error(method + " " + url + ": " + response.status + " " + (await response.text()))
  return (await response.json()) as Answer<Operation<P, M>>
}
`

/** Calls that must compile, and that the test then runs against the server. */
const GOOD_CLIENT = `
import { call, type Schemas } from "./client.js"

export const run = async (base: string, token: string) => {
  const created = await call(base, token, "post", "/person", {
    params: {},
    body: { firstName: "Grace", lastName: "Hopper", email: "grace.hopper." + Date.now() + "@example.com", company: "Navy" }
  })
  const event = await call(base, token, "post", "/event", {
    params: {},
    body: { name: "Typed client launch", primaryDate: "2031-03-01T18:00:00+01:00", timezone: "Europe/Berlin" }
  })
  const added = await call(base, token, "post", "/event/{id}/guestlist", {
    params: { id: event.eventId },
    body: { guests: [{ personId: created.personId }] }
  })
  const status: string = added.guests[0]!.rsvpStatus
  const person = await call(base, token, "get", "/person/{id}", { params: { id: created.personId } })
  const detailed: ReadonlyArray<Schemas["CustomFieldDetailed"]> = person.customFieldsDetailed
  const history: ReadonlyArray<Schemas["EventHistoryEntry"]> = person.eventHistory
  const company: string | undefined = person.company
  return { personId: created.personId, firstName: person.firstName, company, status, fields: detailed.length, history }
}
`

/** Calls with a deliberate mistake each: a field that does not exist, and a wrong type. */
const BAD_CLIENTS: ReadonlyArray<{ readonly file: string; readonly source: string; readonly error: RegExp }> = [
  {
    file: "bad-field.ts",
    source: `
import { call } from "./client.js"
export const run = async (base: string, token: string) => {
  const person = await call(base, token, "get", "/person/{id}", { params: { id: "x" } })
  return person.nickname
}
`,
    error: /Property 'nickname' does not exist/
  },
  {
    file: "bad-body.ts",
    source: `
import { call } from "./client.js"
export const run = (base: string, token: string) =>
  call(base, token, "post", "/event/{id}/guestlist", { params: { id: "e" }, body: { guests: [{ personId: 42 }] } })
`,
    error: /Type 'number' is not assignable to type 'string'/
  },
  {
    file: "bad-path.ts",
    source: `
import { call } from "./client.js"
export const run = (base: string, token: string) => call(base, token, "get", "/persons/{id}", { params: { id: "x" } })
`,
    error: /"\/persons\/\{id\}"/
  }
]

layer(testServer(), { excludeTestServices: true })("the OpenAPI document", (it) => {
  it.effect("gives every operation its pinned operationId, unique, and a summary", () =>
    Effect.gen(function*() {
      const spec = yield* fetchSpec
      const operations = operationsOf(spec)
      const ids = operations.map(({ op }) => op.operationId as string)
      expect(new Set(ids).size, "operationIds are unique").toBe(ids.length)
      for (const { key, op } of operations) {
        expect(op.operationId, key).toMatch(/^[a-z][A-Za-z]*\.[a-z][A-Za-z]*$/)
        expect(typeof op.summary === "string" && op.summary.trim().length > 0, `${key} has a summary`).toBe(true)
      }
      const actual = Object.fromEntries(operations.map(({ key, op }) => [key, op.operationId]))
      for (const [key, id] of Object.entries(OPERATION_IDS)) expect(actual[key], key).toBe(id)
    }))

  it.effect("lists every status an operation can answer, each error with the body it really has", () =>
    Effect.gen(function*() {
      const spec = yield* fetchSpec
      for (const { key, method, op } of operationsOf(spec)) {
        const statuses = Object.keys(op.responses)
        const expected = ["400", "404", "500"]
        if (!UNLIMITED.has(op.operationId)) expected.push("429")
        if ((op.security ?? []).length > 0 || op.operationId === "auth.login") expected.push("401")
        const parameters: ReadonlyArray<Json> = op.parameters ?? []
        if (parameters.some((p) => p.name === "organizationSlug" && p.in === "header")) expected.push("403")
        if (op.requestBody !== undefined) expected.push("413")
        const idempotent = parameters.some((p) => p.name === "Idempotency-Key" && p.in === "header")
        if (method !== "get" && !NO_IDEMPOTENCY.has(op.operationId)) {
          expect(idempotent, `${key} takes an Idempotency-Key`).toBe(true)
        }
        if (idempotent) expected.push("409", "422")
        expect(statuses, key).toEqual(expect.arrayContaining(expected))
        expect(statuses.filter((s) => /^2\d\d$/.test(s)).length, `${key} has a success`).toBeGreaterThan(0)
        for (const status of statuses.filter((s) => !s.startsWith("2"))) {
          const allowed = CODES[status]
          expect(allowed, `${key} ${status} is a known error status`).toBeDefined()
          const codes = codesOf(spec, op.responses[status])
          expect(codes.length, `${key} ${status}`).toBeGreaterThan(0)
          for (const code of codes) expect(allowed, `${key} ${status} ${code}`).toContain(code)
        }
      }
      // the two security schemes every authenticated operation offers
      expect(spec.paths["/person/{id}"].get.security).toEqual([{ apiKey: [] }, { bearer: [] }])
    }))

  it.effect("carries request and response examples that the schemas accept", () =>
    Effect.gen(function*() {
      const spec = yield* fetchSpec
      const schemas = spec.components.schemas as Json
      for (const name of ["CreatePerson", "UpdatePerson", "Person", "PersonDetail", "CreateEvent", "UpdateEvent", "Event", "WebhookRegistration", "WebhookDelivery", "NewMember", "ApiToken"]) {
        expect(schemas[name]?.examples?.length ?? 0, `${name} has examples`).toBeGreaterThan(0)
      }
      expect(spec.paths["/login"].post.requestBody.content["application/json"].schema.examples).toHaveLength(1)
      expect(spec.paths["/persons"].put.requestBody.content["application/json"].schema.examples).toHaveLength(1)
      expect(spec.paths["/person"].post.responses["201"].content["application/json"].schema.examples).toHaveLength(1)
      expect(spec.info.description).toContain("docs/guide")
    }))

  it.scoped("generates TypeScript types with openapi-typescript that a typed client compiles against and runs with", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const spec = yield* fetchSpec
      const dir = yield* scratch
      const types = yield* Effect.promise(async () => astToString(await openapiTS(spec as any)))
      expect(types).toContain(`"persons.get"`)
      writeFileSync(join(dir, "api.ts"), types)
      writeFileSync(join(dir, "client.ts"), CLIENT_WRAPPER)
      writeFileSync(join(dir, "good.ts"), GOOD_CLIENT)
      expect(typeCheck(dir, ["api.ts", "client.ts", "good.ts"])).toEqual([])

      for (const bad of BAD_CLIENTS) {
        writeFileSync(join(dir, bad.file), bad.source)
        const diagnostics = typeCheck(dir, ["api.ts", "client.ts", bad.file])
        expect(diagnostics.length, `${bad.file} must not compile`).toBeGreaterThan(0)
        expect(diagnostics.join("\n"), bad.file).toMatch(bad.error)
      }

      // the calls that compiled also work: the generated types describe what the server answers
      for (const name of ["client", "good"]) {
        const output = ts.transpileModule(
          (name === "client" ? CLIENT_WRAPPER : GOOD_CLIENT).replace(/"\.\/client\.js"/, `"./client.mjs"`),
          { compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext } }
        )
        writeFileSync(join(dir, `${name}.mjs`), output.outputText)
      }
      const good: { run: (base: string, token: string) => Promise<Json> } = yield* Effect.promise(() => import(pathToFileURL(join(dir, "good.mjs")).href))
      const result: Json = yield* Effect.promise(() => good.run(server.url, API_TOKEN))
      expect(result).toMatchObject({ firstName: "Grace", company: "Navy", status: "Invited", fields: 0 })
      expect(result.history).toHaveLength(1)
    }), 120_000) // it runs openapi-typescript and the TypeScript compiler
})
