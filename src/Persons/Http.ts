import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import { ApiBase } from "../Http/ApiBase.js"
import { csvResponse } from "../Csv/CsvExport.js"
import { importAnswer } from "../Csv/ImportReport.js"
import { ImportSlots } from "../Csv/ImportSlots.js"
import { CurrentCaller } from "../Domain/Caller.js"
import { jsonAs } from "../Http/Json.js"
import { CustomFields } from "./CustomFields.js"
import { PersonDetail } from "./Domain.js"
import { Persons } from "./Persons.js"
import { CustomFieldsApi, PersonsApi } from "./Api.js"

export const PersonsHttp = HttpApiBuilder.group(ApiBase.add(PersonsApi), "persons", (handlers) =>
  Effect.gen(function*() {
    const persons = yield* Persons
    const slots = yield* ImportSlots
    return handlers
      .handle("list", ({ urlParams }) => Effect.flatMap(CurrentCaller, (caller) => persons.list(caller, urlParams)))
      .handle("search", ({ urlParams }) => Effect.flatMap(CurrentCaller, (caller) => persons.search(caller, urlParams)))
      // written as it is read (Csv/CsvExport.ts): nothing can fail once the first line is sent
      .handle("exportCsv", ({ urlParams }) =>
        Effect.flatMap(CurrentCaller, (caller) =>
          Effect.flatMap(persons.exportCsv(caller, urlParams), ({ document, filename }) => csvResponse(filename, document)))
      )
      // in an import slot of the caller's organization, once the file has arrived (Csv/ImportSlots.ts);
      // none free in time is answered 503 by the error mapping
      .handle("importCsv", ({ payload, urlParams }) =>
        Effect.flatMap(CurrentCaller, (caller) =>
          slots.run(caller.organizationId, Effect.map(persons.importCsv(caller, payload, urlParams), importAnswer)).pipe(
            Effect.catchTag("ImportsBusy", Effect.die)
          ))
      )
      .handle("create", ({ payload }) => Effect.flatMap(CurrentCaller, (caller) => persons.create(caller, payload)))
      // the hottest read: sent without the encoder's walk (Http/Json.ts; test/api/conformance.test.ts)
      .handle("get", ({ path }) =>
        Effect.flatMap(CurrentCaller, (caller) => Effect.map(persons.get(caller, path.id), (person) => jsonAs(PersonDetail, person)))
      )
      .handle("update", ({ path, payload }) =>
        Effect.flatMap(CurrentCaller, (caller) => persons.update(caller, path.id, payload))
      )
      .handle("bulkUpdate", ({ payload }) =>
        Effect.flatMap(CurrentCaller, (caller) => persons.bulkUpdate(caller, payload.persons))
      )
      .handle("archive", ({ path }) => Effect.flatMap(CurrentCaller, (caller) => persons.archive(caller, path.id)))
      .handle("unarchive", ({ path }) => Effect.flatMap(CurrentCaller, (caller) => persons.unarchive(caller, path.id)))
  }))

export const CustomFieldsHttp = HttpApiBuilder.group(ApiBase.add(CustomFieldsApi), "customFields", (handlers) =>
  Effect.gen(function*() {
    const customFields = yield* CustomFields
    return handlers
      .handle("create", ({ payload }) =>
        Effect.flatMap(CurrentCaller, (caller) => customFields.create(caller.organizationId, payload))
      )
      .handle("list", () =>
        Effect.flatMap(CurrentCaller, (caller) =>
          Effect.map(customFields.list(caller.organizationId), (list) => ({ customFields: list })))
      )
  }))
