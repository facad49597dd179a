/**
 * Webhook notifications into the transactional outbox (docs/integrators.md#notification-types). The
 * outbox only stores and delivers: each feature builds its own bodies (Guests/GuestPayloads.ts,
 * Events/EventPayload.ts) and enqueues them, by type, in the same transaction as the change that
 * causes them, one message fanned out to the registrations existing at that moment: a delivery of
 * channel `webhook` each (Outbox/Deliveries.ts); a change that rolls back leaves none, and a
 * committed one survives crashes. Writing wakes the dispatcher (Outbox/Wakeups.ts), so the first
 * attempt follows the commit without a polling delay.
 *
 * Bulk writes: messages and their deliveries are written by a few set-based statements per batch
 * of bodies (`enqueue`), with a turn of the event loop between batches, so that thousands of
 * notifications cost a few dozen statements of the caller's transaction. A body too large to make
 * as one value (the GuestList notification of a guest-list import) is given as serialized JSON in
 * pieces (`enqueueSerialized`) and stored as it comes, in parts of about a MiB once it outgrows
 * `LARGE_PAYLOAD_BYTES`: it is never held whole, neither here nor when it is sent.
 */
import type { SqlError } from "@effect/sql/SqlError"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { AppConfig } from "../Config/AppConfig.js"
import { yieldToEventLoop } from "../Csv/Chunks.js"
import { Ids } from "../Domain/Ids.js"
import { LARGE_PAYLOAD_BYTES } from "../Outbox/Channel.js"
import { Deliveries } from "../Outbox/Deliveries.js"
import { maxAttemptsOf } from "../Outbox/Retry.js"
import { OutboxWakeups } from "../Outbox/Wakeups.js"
import { TEST_MESSAGE_PREFIX, type WebhookType } from "./Domain.js"
import { type NewMessage, WebhooksRepo } from "./WebhooksRepo.js"
import type { OrganizationRowId } from "../Domain/RowIds.js"

/** The bodies of one type's messages, as they are or made by a function called only when someone is subscribed. */
type Bodies = ReadonlyArray<unknown> | (() => ReadonlyArray<unknown>)

/** One type's messages for `enqueueAll`. */
export type Notification = readonly [type: WebhookType, bodies: Bodies]

/** A message stored: its row, and its body's size in bytes (for the dispatcher's large lane). */
interface StoredMessage {
  readonly row: number
  readonly bytes: number
}

/** Bodies per batch of `enqueue`: its messages' statements and one for their deliveries. */
const ENQUEUE_BATCH = 256
/** ... and at most about this much serialized JSON (UTF-16 code units) per batch. */
const ENQUEUE_BATCH_CHARS = 2 * 1024 * 1024
/** The size (UTF-8 bytes) of a part of a large message's body, at least: whole pieces are put together up to it. */
const PART_BYTES = 1024 * 1024

/**
 * The JSON text of an array whose elements come in batches, in pieces: `[`, each batch's elements
 * (serialized one by one) with commas between them, `]`. Nothing is held beyond one batch.
 */
export const jsonArray = <E, R>(batches: Stream.Stream<ReadonlyArray<unknown>, E, R>): Stream.Stream<string, E, R> =>
  Stream.suspend(() => {
    let first = true
    const elements = Stream.filterMap(batches, (batch) => {
      if (batch.length === 0) return Option.none()
      // as JSON.stringify writes an array's elements: what has no JSON form is null
      const piece = batch.map((element) => JSON.stringify(element) ?? "null").join(",")
      const separated = first ? piece : `,${piece}`
      first = false
      return Option.some(separated)
    })
    return Stream.make("[").pipe(Stream.concat(elements), Stream.concat(Stream.make("]")))
  })

export class Outbox extends Effect.Service<Outbox>()("Convene/Outbox", {
  effect: Effect.gen(function*() {
    const repo = yield* WebhooksRepo
    const deliveries = yield* Deliveries
    const wakeups = yield* OutboxWakeups
    const ids = yield* Ids
    const { webhooks } = yield* AppConfig
    const maxAttempts = maxAttemptsOf(webhooks.retrySchedule)

    const newMessageId = (prefix: string) => Effect.map(ids.uuid, (uuid) => `${prefix}${uuid.replaceAll("-", "")}`)

    /**
     * Messages for `webhookIds`, set-based: the messages' statements, then one for all their
     * deliveries (one per message and registration, in that order). Answers the deliveries' public ids.
     */
    const fanOut = (
      organizationId: OrganizationRowId,
      type: WebhookType,
      webhookIds: ReadonlyArray<number>,
      messages: ReadonlyArray<NewMessage>,
      now: number
    ) =>
      Effect.gen(function*() {
        const at = new Date(now).toISOString()
        const rowOf = yield* repo.insertMessages(organizationId, type, at, messages)
        const stored = messages.map((m): StoredMessage => ({ row: rowOf.get(m.publicId)!, bytes: Buffer.byteLength(m.payload) }))
        return yield* fanOutMessages(organizationId, webhookIds, stored, now)
      })

    /** The deliveries of stored messages (their rows and sizes) to `webhookIds`, in one statement. */
    const fanOutMessages = (
      organizationId: OrganizationRowId,
      webhookIds: ReadonlyArray<number>,
      messages: ReadonlyArray<StoredMessage>,
      now: number
    ) =>
      Effect.gen(function*() {
        const rows: Array<readonly [string, number, number, number]> = []
        for (const message of messages) {
          for (const webhookId of webhookIds) rows.push([yield* ids.uuid, webhookId, message.row, message.bytes])
        }
        const at = new Date(now).toISOString()
        yield* deliveries.insertMany({ channel: "webhook", organizationId, maxAttempts, dueAt: now, at, rows: JSON.stringify(rows) })
        return rows.map((row) => row[0])
      })

    /** Whether the organization has a registration of `type` now: a caller spares building bodies nobody gets. */
    const subscribed = (organizationId: OrganizationRowId, type: WebhookType) =>
      Effect.map(repo.subscribers(organizationId, type), (webhookIds) => webhookIds.length > 0)

    /**
     * Stores one message per body for every current registration of its type (inside the caller's
     * transaction), for each `[type, bodies]` in order, the registrations of all the types read by
     * one statement (a guest-list write notifies `GuestList` and `EventPerson`): in batches of
     * `ENQUEUE_BATCH` bodies, each written by a few set-based statements, with a turn of the event
     * loop between batches. Bodies given as a function are made only when someone is subscribed: a
     * write nobody listens to builds nothing.
     */
    const enqueueAll = (organizationId: OrganizationRowId, notifications: ReadonlyArray<Notification>) =>
      Effect.gen(function*() {
        const wanted = notifications.filter(([, bodiesOf]) => !(Array.isArray(bodiesOf) && bodiesOf.length === 0))
        if (wanted.length === 0) return
        const subscribersOf = yield* repo.subscribersByType(organizationId, wanted.map(([type]) => type))
        if (subscribersOf.size === 0) return
        const now = yield* Clock.currentTimeMillis
        let batches = 0
        for (const [type, bodiesOf] of wanted) {
          const subscribers = subscribersOf.get(type)
          if (subscribers === undefined) continue
          const bodies = typeof bodiesOf === "function" ? bodiesOf() : bodiesOf
          let next = 0
          while (next < bodies.length) {
            if (batches++ > 0) yield* yieldToEventLoop
            const batch: Array<NewMessage> = []
            let chars = 0
            while (next < bodies.length && batch.length < ENQUEUE_BATCH && chars < ENQUEUE_BATCH_CHARS) {
              const payload = JSON.stringify(bodies[next++])
              chars += payload.length
              batch.push({ publicId: yield* newMessageId("msg_"), payload })
            }
            yield* fanOut(organizationId, type, subscribers, batch, now)
          }
        }
        yield* wakeups.wake
      })

    /** `enqueueAll` of one type. */
    const enqueue = (organizationId: OrganizationRowId, type: WebhookType, bodiesOf: Bodies) =>
      enqueueAll(organizationId, [[type, bodiesOf]])

    /**
     * Stores one message whose body is the concatenation of `pieces`, serialized JSON given as it
     * is made, for every current registration of `type` (inside the caller's transaction). Pieces
     * are held until they outgrow `LARGE_PAYLOAD_BYTES`; beyond that, the body goes to the database
     * in parts of at least `PART_BYTES` (whole pieces), each written as soon as it is complete, so
     * that neither the body nor its JSON text is ever whole in memory. The pieces are not checked:
     * they must make one JSON value. With no registration, the stream still runs (for its effects),
     * and nothing is stored.
     */
    const enqueueSerialized = <E, R>(organizationId: OrganizationRowId, type: WebhookType, pieces: Stream.Stream<string, E, R>) =>
      Effect.gen(function*() {
        const subscribers = yield* repo.subscribers(organizationId, type)
        if (subscribers.length === 0) return yield* Stream.runDrain(pieces)
        const now = yield* Clock.currentTimeMillis
        const at = new Date(now).toISOString()
        const publicId = yield* newMessageId("msg_")
        let held: Array<string> = []
        let heldBytes = 0
        /** The message's row once its body goes in parts, the next part's number, and the bytes stored. */
        let parted = null as { readonly row: number; seq: number; bytes: number } | null
        const writeParts = (all: boolean) =>
          Effect.gen(function*() {
            const message = parted!
            while (held.length > 0 && (all || heldBytes >= PART_BYTES)) {
              let count = 0
              let bytes = 0
              while (count < held.length && bytes < PART_BYTES) bytes += Buffer.byteLength(held[count++]!)
              yield* repo.insertPart(message.row, message.seq++, held.slice(0, count).join(""))
              message.bytes += bytes
              held = held.slice(count)
              heldBytes -= bytes
              yield* yieldToEventLoop
            }
          })
        yield* Stream.runForEach(pieces, (piece): Effect.Effect<void, SqlError> =>
          Effect.gen(function*() {
            if (piece.length === 0) return
            held.push(piece)
            heldBytes += Buffer.byteLength(piece)
            if (parted === null) {
              if (heldBytes <= LARGE_PAYLOAD_BYTES) return
              parted = { row: yield* repo.insertPartedMessage({ publicId, organizationId, type, at }), seq: 0, bytes: 0 }
            }
            yield* writeParts(false)
          }))
        let stored: StoredMessage
        if (parted === null) {
          const payload = held.join("")
          const rowOf = yield* repo.insertMessages(organizationId, type, at, [{ publicId, payload }])
          stored = { row: rowOf.get(publicId)!, bytes: heldBytes }
        } else {
          yield* writeParts(true)
          yield* repo.endParts(parted.row, parted.bytes)
          stored = { row: parted.row, bytes: parted.bytes }
        }
        held = []
        yield* fanOutMessages(organizationId, subscribers, [stored], now)
        yield* wakeups.wake
      })

    /**
     * A test delivery (`POST /webhook/test`): one message with `body` for one registration only, its
     * id marked with `TEST_MESSAGE_PREFIX`; from there it is delivered, retried and logged like any
     * other. Answers the delivery's public id. Runs inside the caller's transaction.
     */
    const enqueueTest = (organizationId: OrganizationRowId, webhookId: number, type: WebhookType, body: unknown) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const message = { publicId: yield* newMessageId(TEST_MESSAGE_PREFIX), payload: JSON.stringify(body) }
        const [publicId] = yield* fanOut(organizationId, type, [webhookId], [message], now)
        yield* wakeups.wake
        return publicId!
      })

    return { subscribed, enqueue, enqueueAll, enqueueSerialized, enqueueTest } as const
  }),
  dependencies: [WebhooksRepo.Default, Deliveries.Default, OutboxWakeups.Default, Ids.Default]
}) {}
