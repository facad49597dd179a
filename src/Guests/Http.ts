import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import { ApiBase } from "../Http/ApiBase.js"
import { csvResponse } from "../Csv/CsvExport.js"
import { importAnswer } from "../Csv/ImportReport.js"
import { ImportSlots } from "../Csv/ImportSlots.js"
import { CurrentCaller } from "../Domain/Caller.js"
import { jsonAs } from "../Http/Json.js"
import { jsonArrayAs } from "../Http/JsonStream.js"
import { Guests, GuestsApi, GuestSearchResult } from "./Api.js"
import { GuestLists } from "./GuestLists.js"

export const GuestsHttp = HttpApiBuilder.group(ApiBase.add(GuestsApi), "guests", (handlers) =>
  Effect.gen(function*() {
    const guestLists = yield* GuestLists
    const slots = yield* ImportSlots
    // Guest lists run to thousands of guests: they are sent without a pass of the schema encoder.
    return handlers
      // a list of any length is written as it is read, batch by batch (Http/JsonStream.ts)
      .handle("list", ({ path, urlParams }) =>
        Effect.flatMap(CurrentCaller, (caller) =>
          Effect.flatMap(guestLists.list(caller, path.id, urlParams), (batches) => jsonArrayAs(Guests, "guests", batches)))
      )
      .handle("search", ({ path, urlParams }) =>
        Effect.flatMap(CurrentCaller, (caller) =>
          Effect.map(guestLists.search(caller, path.id, urlParams), (r) => jsonAs(GuestSearchResult, r)))
      )
      // written as it is read (Csv/CsvExport.ts): nothing can fail once the first line is sent
      .handle("exportCsv", ({ path }) =>
        Effect.flatMap(CurrentCaller, (caller) =>
          Effect.flatMap(guestLists.exportCsv(caller, path.id), ({ document, filename }) => csvResponse(filename, document)))
      )
      // in an import slot of the caller's organization, once the file has arrived (Csv/ImportSlots.ts);
      // none free in time is answered 503 by the error mapping
      .handle("importCsv", ({ path, payload, urlParams }) =>
        Effect.flatMap(CurrentCaller, (caller) =>
          slots.run(caller.organizationId, Effect.map(guestLists.importCsv(caller, path.id, payload, urlParams), importAnswer)).pipe(
            Effect.catchTag("ImportsBusy", Effect.die)
          ))
      )
      .handle("add", ({ path, payload }) =>
        Effect.flatMap(CurrentCaller, (caller) =>
          Effect.map(guestLists.add(caller, path.id, payload.guests), (change) => jsonAs(Guests, { guests: change.guests })))
      )
      .handle("update", ({ path, payload }) =>
        Effect.flatMap(CurrentCaller, (caller) =>
          Effect.map(guestLists.update(caller, path.id, payload.guests), (change) => jsonAs(Guests, { guests: change.guests })))
      )
      .handle("remove", ({ path, payload }) =>
        Effect.flatMap(CurrentCaller, (caller) =>
          Effect.as(guestLists.remove(caller, path.id, payload.guests), { success: true } as const))
      )
  }))
