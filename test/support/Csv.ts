/**
 * CSV imports and exports from a test's side: contacts (`/person/import`, `/person/export`) and an
 * event's guest list (`/event/:id/guestlist/import`, `.../export`), the files sent as they are and
 * the exports parsed with csv-parse (test/api/csv-*.test.ts, test/slow/csv-*-scale.test.ts).
 */
import { parse } from "csv-parse/sync"
import { Effect } from "effect"
import { expectStatus } from "./Fixtures.js"
import { API_TOKEN, type Reply, type TestServerShape } from "./TestServer.js"

type Server = Pick<TestServerShape, "url" | "request">

// ---- contacts ----------------------------------------------------------------------------------

export interface ContactsImportOptions {
  readonly query?: string
  readonly token?: string | null
  readonly headers?: Record<string, string>
}

/** POST /person/import with `body` sent as it is (text or raw bytes). */
export const importContactsCsv = (server: Server, body: string | Uint8Array | ReadableStream, options: ContactsImportOptions = {}) =>
  Effect.promise(async (): Promise<Reply> => {
    const headers: Record<string, string> = { "content-type": "text/csv", ...options.headers }
    const token = options.token === undefined ? API_TOKEN : options.token
    if (token !== null) headers["x-api-key"] = token
    const response = await fetch(`${server.url}/person/import${options.query ?? ""}`, {
      method: "POST",
      headers,
      body: body as BodyInit,
      ...(body instanceof ReadableStream ? { duplex: "half" } : {})
    } as RequestInit)
    const text = await response.text()
    let parsed: any
    try {
      parsed = JSON.parse(text)
    } catch {
      parsed = undefined
    }
    return { status: response.status, headers: response.headers, body: parsed, text }
  })

/** GET /person/export, parsed: the header row and the records as objects. */
export const exportContactsCsv = (server: Server, options: { readonly query?: string; readonly token?: string; readonly headers?: Record<string, string> } = {}) =>
  Effect.map(
    server.request("GET", `/person/export${options.query ?? ""}`, {
      ...(options.token === undefined ? {} : { token: options.token }),
      ...(options.headers === undefined ? {} : { headers: options.headers, token: null })
    }),
    (reply) => {
      expectStatus(reply, 200)
      const records = parse(reply.text, { relax_column_count: false }) as Array<Array<string>>
      const header = records[0]!
      const rows = records.slice(1).map((record) => Object.fromEntries(header.map((h, i) => [h, record[i]!])))
      return { reply, header, rows, records }
    }
  )

export const customField = (server: Server, token: string, body: Record<string, unknown>) =>
  Effect.map(server.request("POST", "/custom-field", { token, body }), (reply) => expectStatus(reply, 200).body)

// ---- a guest list ------------------------------------------------------------------------------

export interface CsvCaller {
  readonly token?: string | null
  readonly headers?: Record<string, string>
}

const auth = (caller: CsvCaller): Record<string, string> => {
  const token = caller.token === undefined ? API_TOKEN : caller.token
  return { ...(token === null ? {} : { "x-api-key": token }), ...caller.headers }
}

/** POST /event/:id/guestlist/import with `body` sent as it is. */
export const importGuestsCsv = (server: Server, eventId: string, body: string | Uint8Array, options: CsvCaller & { readonly query?: string } = {}) =>
  Effect.promise(async (): Promise<Reply> => {
    const response = await fetch(`${server.url}/event/${eventId}/guestlist/import${options.query ?? ""}`, {
      method: "POST",
      headers: { "content-type": "text/csv", ...auth(options) },
      body: body as BodyInit
    })
    const text = await response.text()
    let parsed: any
    try {
      parsed = JSON.parse(text)
    } catch {
      parsed = undefined
    }
    return { status: response.status, headers: response.headers, body: parsed, text }
  })

/** GET /event/:id/guestlist/export, parsed: the header row and the records as objects. */
export const exportGuestsCsv = (server: Server, eventId: string, caller: CsvCaller = {}) =>
  Effect.map(
    server.request("GET", `/event/${eventId}/guestlist/export`, { token: null, headers: auth(caller) }),
    (reply) => {
      expectStatus(reply, 200)
      const records = parse(reply.text, { relax_column_count: false }) as Array<Array<string>>
      const header = records[0]!
      const rows = records.slice(1).map((record) => Object.fromEntries(header.map((h, i) => [h, record[i]!])))
      return { reply, header, rows, records }
    }
  )

export const addGuests = (server: Server, eventId: string, guests: ReadonlyArray<Record<string, unknown>>, token = API_TOKEN) =>
  Effect.map(server.request("POST", `/event/${eventId}/guestlist`, { token, body: { guests } }), (r) => expectStatus(r, 200).body.guests as Array<any>)

