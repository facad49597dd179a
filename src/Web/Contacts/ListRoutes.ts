/**
 * Contacts in the dashboard (docs/integrators.md#persons): the list (search, pages, active or
 * archived) and its CSV export, `GET /person/export`'s file. Every role reads contacts.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { csvResponse } from "../../Csv/CsvExport.js"
import { Persons } from "../../Persons/Persons.js"
import { Cut, readQuery, Skip } from "../Kit/Form.js"
import { Web } from "../Kit/Web.js"
import { ContactsListPage } from "./ListPage.js"

/** Contacts on one page of the list. */
const PAGE_SIZE = 25

/** Whether the archived contacts are asked for (`?archived=1`, `true`, `on`, `yes`). */
const Archived = Schema.transform(Schema.String, Schema.Boolean, {
  strict: true,
  decode: (value) => ["1", "true", "on", "yes"].includes(value.toLowerCase()),
  encode: (archived) => (archived ? "1" : "")
})
const ListQuery = Schema.Struct({ q: Cut(320), archived: Archived, skip: Skip })

export const ListRoutesLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const web = yield* Web
    const persons = yield* Persons
    const { site } = web

    yield* router.get(
      "/app/contacts",
      web.page("Viewer", (viewer) =>
        Effect.gen(function*() {
          const { archived, q: term, skip } = yield* readQuery(ListQuery)
          const page = yield* persons.browse(viewer.caller, { term, archived, limit: PAGE_SIZE, skip })
          if (page.persons.length === 0 && skip > 0 && page.total > 0) {
            const back = new URLSearchParams()
            if (term !== "") back.set("q", term)
            if (archived) back.set("archived", "1")
            return web.redirect(`/app/contacts${back.size === 0 ? "" : `?${back}`}`)
          }
          return web.render(ContactsListPage({
            site,
            member: viewer.member,
            flash: viewer.flash,
            canWrite: viewer.can("Team Member"),
            query: term,
            searchedBy: page.by,
            archived,
            persons: page.persons,
            total: page.total,
            skip,
            limit: PAGE_SIZE
          }))
        }))
    )

    // `GET /person/export` for the member: the same file, streamed, with the same headers
    yield* router.get(
      "/app/contacts/export",
      web.page("Viewer", (viewer) =>
        Effect.gen(function*() {
          const { archived } = yield* readQuery(Schema.Struct({ archived: Archived }))
          const { document, filename } = yield* persons.exportCsv(viewer.caller, { archived })
          return yield* csvResponse(filename, document)
        }))
    )
  })
)
