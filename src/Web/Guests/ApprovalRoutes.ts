/**
 * One registration's approval or decline (CONTRACT §16, "Approval"), from its row of the guest
 * list or from the guest's page: `Accepted` while places remain, else `Waitlisted`, or `Declined`,
 * as an ordinary status change by the member (`GuestLists.decide`, Guests/Approvals.ts). A
 * selection's is the list's bulk form (ListRoutes.ts). Needs Team Member; returns to where it came
 * from, the list's place kept.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { GuestLists } from "../../Guests/GuestLists.js"
import { summaryOf } from "../Events/Summary.js"
import { fieldsOf, orNone, pathParams } from "../Kit/Form.js"
import { Web } from "../Kit/Web.js"
import { guestPath, listPath, listQuery, ListState } from "./State.js"
import { decidedMessage, historyFull } from "./Words.js"

const readState = fieldsOf(ListState)
// `from`: the guest's page, or the list
const readDecision = fieldsOf(Schema.Struct({ decision: orNone(Schema.Literal("approve", "decline")), from: Schema.String }))

export const ApprovalRoutesLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const web = yield* Web
    const guestLists = yield* GuestLists

    yield* router.post(
      "/app/events/:id/guests/:personId/approval",
      web.action("Team Member", (viewer, form) =>
        Effect.gen(function*() {
          const { id, personId } = yield* pathParams("id", "personId")
          const state = readState(form)
          const { event: row, guest } = yield* guestLists.guest(viewer.caller, id, personId)
          const event = summaryOf(row)
          const { decision, from } = readDecision(form)
          const back = from === "guest" ? guestPath(event, personId, listQuery(state)) : listPath(event, state)
          if (decision === undefined) return yield* web.flashTo(viewer, "error", "Choose to approve or decline.", back)
          const nothing = `${guest.name} is not awaiting approval (${guest.rsvpStatus} now). Nothing was changed.`
          return yield* web.perform(viewer, guestLists.decide(viewer.caller, id, [personId], decision), {
            to: back,
            done: (decided) => decidedMessage(decision, decided) ?? web.flashTo(viewer, "error", nothing, back),
            failed: (error) => (error._tag === "Conflict" ? historyFull(guest.name) : `${guest.name} is no longer on the list. Nothing was changed.`)
          })
        }))
    )
  })
)
