/** Webhook registrations (docs/integrators.md#registering-a-webhook); their delivery log is DeliveryLog.ts. */
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { AppConfig } from "../Config/AppConfig.js"
import type { Caller } from "../Domain/Caller.js"
import { Ids } from "../Domain/Ids.js"
import { nowIso } from "../Domain/Time.js"
import { Conflict, InvalidRequest, NotFound } from "../Domain/Errors.js"
import { Deliveries } from "../Outbox/Deliveries.js"
import { onUniqueViolation, orDieOnStorage } from "../Db/SqlErrors.js"
import { refusalOf } from "./Destinations.js"
import type { Registration } from "./Domain.js"
import { Outbox } from "./Outbox.js"
import { Samples } from "./Samples.js"
import { SECRET_PREFIX } from "./Signing.js"
import { WebhooksRepo } from "./WebhooksRepo.js"
import type { OrganizationRowId } from "../Domain/RowIds.js"

/** A registration as the operator (admin CLI) and the dashboard see it. */
export interface RegistrationSummary {
  readonly id: string
  readonly url: string
  readonly type: Registration["type"]
  readonly createdAt: string
  readonly state: "active" | "disabled"
  /** Its deliveries still owed. */
  readonly pending: number
  /** Its deliveries given up. */
  readonly failed: number
}

/**
 * Registrations of one type per organization: each notification is written once for each of them,
 * in the transaction of the change that makes it, so their number multiplies every write's work.
 */
export const MAX_REGISTRATIONS_PER_TYPE = 25

export class Registrations extends Effect.Service<Registrations>()("Convene/Registrations", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* WebhooksRepo
    const deliveries = yield* Deliveries
    const outbox = yield* Outbox
    const samples = yield* Samples
    const ids = yield* Ids
    const { webhooks } = yield* AppConfig

    /** Registers (or finds) the URL and type; registering twice is one registration with one secret. */
    const register = Effect.fn("Registrations.register")(function*(caller: Caller, input: Registration) {
      const refusal = refusalOf(input.webhook, webhooks.allowPrivateDestinations)
      if (refusal !== undefined) return yield* InvalidRequest.at("webhook", refusal)
      const secret = `${SECRET_PREFIX}${Buffer.from(yield* ids.secret(32), "base64url").toString("base64")}`
      const publicId = yield* ids.uuid
      const at = yield* nowIso
      return yield* Effect.gen(function*() {
        const key = { organizationId: caller.organizationId, url: input.webhook, type: input.type }
        const existing = yield* repo.active(key)
        if (Option.isSome(existing)) {
          if (existing.value.disabled_at !== null) yield* repo.enable(existing.value.id)
          return { success: true as const, secret: existing.value.secret }
        }
        if ((yield* repo.countOfType(caller.organizationId, input.type)) >= MAX_REGISTRATIONS_PER_TYPE) {
          return yield* new Conflict({
            message: `An organization has at most ${MAX_REGISTRATIONS_PER_TYPE} webhooks of one type: delete one first`
          })
        }
        yield* repo.insert({ ...key, publicId, secret, at })
        return { success: true as const, secret }
      }).pipe(sql.withTransaction, onUniqueViolation(() => new Conflict({ message: "Registered concurrently; retry" })))
    })

    /** Soft-deletes a registration and cancels its pending deliveries; answers how many were cancelled. */
    const softDelete = (webhookId: number, at: string) =>
      Effect.gen(function*() {
        const cancelled = yield* deliveries.countPendingTo(webhookId)
        yield* repo.softDelete(webhookId, at)
        yield* deliveries.cancelPendingTo(webhookId, "registration deleted", at)
        return cancelled
      })

    /** Deletes a registration and cancels its pending deliveries. */
    const unregister = Effect.fn("Registrations.unregister")(function*(caller: Caller, input: Registration) {
      const at = yield* nowIso
      return yield* Effect.gen(function*() {
        const existing = yield* repo.active({ organizationId: caller.organizationId, url: input.webhook, type: input.type })
        if (Option.isNone(existing)) return yield* new NotFound({ message: "No such webhook registration" })
        yield* softDelete(existing.value.id, at)
        return { success: true as const }
      }).pipe(sql.withTransaction, orDieOnStorage)
    })

    /** An organization's registrations, oldest first, for the operator (admin CLI) and the dashboard. */
    const summaries = Effect.fn("Registrations.summaries")(function*(organizationId: OrganizationRowId) {
      const [rows, counts] = yield* Effect.all([
        repo.summaries(organizationId),
        deliveries.countsByDestination(organizationId, "webhook")
      ]).pipe(Effect.orDie)
      return rows.map((row): RegistrationSummary => ({
        id: row.public_id,
        url: row.url,
        type: row.type,
        createdAt: row.created_at,
        state: row.disabled_at === null ? "active" : "disabled",
        pending: counts.get(row.id)?.pending ?? 0,
        failed: counts.get(row.id)?.failed ?? 0
      }))
    })

    /** A registration of the organization by its id, in a transaction with `use`; another's is unknown. */
    const withRegistration = <A>(
      organizationId: OrganizationRowId,
      registrationId: string,
      use: (webhookId: number, at: string) => Effect.Effect<A, SqlError>
    ) =>
      Effect.gen(function*() {
        const at = yield* nowIso
        const found = yield* repo.byRegistrationId({ organizationId, publicId: registrationId })
        if (Option.isNone(found)) return yield* new NotFound({ message: `Webhook registration ${registrationId} not found` })
        return yield* use(found.value.id, at)
      }).pipe(sql.withTransaction, orDieOnStorage)

    /**
     * The operator's way out of a stuck registration (admin CLI): disabling stops deliveries to it
     * and cancels those pending, as a 410 Gone answer does; enabling lets new notifications reach it
     * again. Answers how many deliveries were cancelled.
     */
    const setState = Effect.fn("Registrations.setState")(function*(
      organizationId: OrganizationRowId,
      registrationId: string,
      state: "active" | "disabled"
    ) {
      return yield* withRegistration(organizationId, registrationId, (webhookId, at) =>
        state === "active"
          ? Effect.as(repo.enable(webhookId), 0)
          : Effect.gen(function*() {
            const cancelled = yield* deliveries.countPendingTo(webhookId)
            yield* repo.disable(webhookId, at)
            yield* deliveries.cancelPendingTo(webhookId, "registration disabled by the operator", at)
            return cancelled
          }))
    })

    /** Deletes a registration by its id, as `DELETE /webhook` does (admin CLI); answers how many deliveries were cancelled. */
    const remove = Effect.fn("Registrations.remove")(function*(organizationId: OrganizationRowId, registrationId: string) {
      return yield* withRegistration(organizationId, registrationId, softDelete)
    })

    /** `contacts` is an EventPerson body: in the records variant that body is itself the array of one guest. */
    const sample = Effect.sync(() => {
      const body = samples.of("EventPerson", webhooks.payloadVariant)
      return { contacts: Array.isArray(body) ? body : [body] }
    })

    /** The signing secret of a registration of the caller's organization; another's is unknown. */
    const secret = Effect.fn("Registrations.secret")(function*(caller: Caller, registrationId: string) {
      const found = yield* repo.byRegistrationId({ organizationId: caller.organizationId, publicId: registrationId }).pipe(Effect.orDie)
      if (Option.isNone(found)) return yield* new NotFound({ message: `Webhook registration ${registrationId} not found` })
      return found.value.secret
    })

    /**
     * A test delivery (`POST /webhook/test`): a sample notification of the registration's type, in
     * the configured variant, sent to that registration alone through the outbox, so it is signed,
     * retried, bounded and logged like any other (marked `test`). Only an active registration of the
     * caller's organization gets one; a disabled one is enabled again by registering it again.
     */
    const sendTest = Effect.fn("Registrations.sendTest")(function*(caller: Caller, input: Registration) {
      return yield* Effect.gen(function*() {
        const found = yield* repo.active({ organizationId: caller.organizationId, url: input.webhook, type: input.type })
        if (Option.isNone(found)) {
          return yield* new NotFound({ message: `No webhook registration of ${input.type} for ${input.webhook}` })
        }
        if (found.value.disabled_at !== null) {
          return yield* new NotFound({
            message: `The ${input.type} registration for ${input.webhook} is disabled; register it again to enable it`
          })
        }
        const body = samples.of(input.type, webhooks.payloadVariant)
        const deliveryId = yield* outbox.enqueueTest(caller.organizationId, found.value.id, input.type, body)
        return { success: true as const, deliveryId }
      }).pipe(sql.withTransaction, orDieOnStorage)
    })

    return { register, unregister, summaries, setState, remove, sample, secret, sendTest } as const
  }),
  dependencies: [WebhooksRepo.Default, Deliveries.Default, Outbox.Default, Ids.Default]
}) {}
