/**
 * `convene webhook ...`: the operator's view of an organization's webhook registrations and a way
 * out of a stuck one (a receiver that misbehaves), usable while the server runs: the server's
 * dispatcher reads the same database, so a disabled or deleted registration gets nothing more.
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import { Organizations } from "../Organizations/Organizations.js"
import { Registrations } from "../Webhooks/Registrations.js"

const org = Options.text("org").pipe(Options.withDescription("The organization's slug"))
const id = Args.text({ name: "id" }).pipe(Args.withDescription("The registration's id, as `webhook list` shows it"))

const organizationId = (slug: string) => Effect.map(Effect.flatMap(Organizations, (o) => o.get(slug)), (o) => o.id)

const cancelledNote = (cancelled: number) => (cancelled === 1 ? "1 pending delivery cancelled" : `${cancelled} pending deliveries cancelled`)

const list = Command.make("list", { org }, (input) =>
  Effect.gen(function*() {
    const registrations = yield* Registrations
    const rows = yield* registrations.summaries(yield* organizationId(input.org))
    if (rows.length === 0) return yield* Console.log(`No webhook registrations in ${input.org}`)
    for (const r of rows) {
      yield* Console.log(
        [r.id, r.state.padEnd(8), r.type.padEnd(11), `pending ${r.pending}`, `failed ${r.failed}`, r.url].join("  ")
      )
    }
  })).pipe(Command.withDescription("List an organization's webhook registrations with their pending and failed deliveries"))

const disable = Command.make("disable", { org, id }, (input) =>
  Effect.gen(function*() {
    const registrations = yield* Registrations
    const cancelled = yield* registrations.setState(yield* organizationId(input.org), input.id, "disabled")
    yield* Console.log(`Disabled ${input.id}; ${cancelledNote(cancelled)}`)
  })).pipe(Command.withDescription("Stop delivering to a registration and cancel its pending deliveries (as a 410 answer does)"))

const enable = Command.make("enable", { org, id }, (input) =>
  Effect.gen(function*() {
    const registrations = yield* Registrations
    yield* registrations.setState(yield* organizationId(input.org), input.id, "active")
    yield* Console.log(`Enabled ${input.id}; new notifications reach it again`)
  })).pipe(Command.withDescription("Deliver new notifications to a disabled registration again"))

const remove = Command.make("delete", { org, id }, (input) =>
  Effect.gen(function*() {
    const registrations = yield* Registrations
    const cancelled = yield* registrations.remove(yield* organizationId(input.org), input.id)
    yield* Console.log(`Deleted ${input.id}; ${cancelledNote(cancelled)}`)
  })).pipe(Command.withDescription("Delete a registration as DELETE /webhook does; its pending deliveries are cancelled"))

export const webhook = Command.make("webhook").pipe(
  Command.withDescription("Webhook registrations"),
  Command.withSubcommands([list, disable, enable, remove])
)
