/**
 * The dispatcher's fairness (Dispatcher.ts): one destination (a webhook registration, the SMTP
 * server) holds at most a quarter of the slots, one organization at most half, and one large
 * delivery at most is in flight at once. `makeInFlight` keeps the attempts in flight by
 * destination, organization and lane, and tells a look for due deliveries what to leave out and
 * which of the due ones to claim.
 */
import * as Effect from "effect/Effect"
import * as HashMap from "effect/HashMap"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import type { AtTheirShare, DueDelivery } from "./OutboxRepo.js"

/**
 * The most attempts one destination (a webhook registration, the SMTP server) may have in flight:
 * a quarter of the dispatcher's slots (`WEBHOOK_CONCURRENCY`), at least one, so that no slow or
 * dead receiver holds more than a quarter of the pool.
 */
export const perDestination = (slots: number): number => Math.max(1, Math.ceil(slots / 4))

/**
 * The most attempts one organization may have in flight, whatever its destinations: half of the
 * slots, at least one, so that an organization with several slow receivers (each within its own
 * share) still leaves the other half of the pool to everyone else.
 */
export const perOrganization = (slots: number): number => Math.max(1, Math.ceil(slots / 2))

/** Large deliveries in flight at once. */
const LARGE_LANE = 1

const countOf = (map: HashMap.HashMap<string, number>) => HashMap.reduce(map, 0, (sum, n) => sum + n)

const adjusted = <K>(map: HashMap.HashMap<K, number>, key: K, by: number) => {
  const next = Option.getOrElse(HashMap.get(map, key), () => 0) + by
  return next <= 0 ? HashMap.remove(map, key) : HashMap.set(map, key, next)
}

/** What a look for due deliveries may take: how many, which to leave out, and which to choose. */
export interface Look {
  /** Slots free. */
  readonly free: number
  /** Whether the large lane is free (large deliveries are looked for only then). */
  readonly laneFree: boolean
  /** What is at its share already, left out of the look (OutboxRepo.AtTheirShare). */
  readonly skip: AtTheirShare
  /** The candidates (oldest due first) that fit the free slots, each share and the large lane. */
  readonly choose: (candidates: ReadonlyArray<DueDelivery>) => Array<DueDelivery>
}

/** The attempts in flight of a pool of `slots`. */
export const makeInFlight = (slots: number) =>
  Effect.gen(function*() {
    const share = perDestination(slots)
    const organizationShare = perOrganization(slots)
    /** Attempts in flight per destination. */
    const byDestination = yield* Ref.make(HashMap.empty<string, number>())
    /** Attempts in flight per organization. */
    const byOrganization = yield* Ref.make(HashMap.empty<number, number>())
    /** Large attempts in flight. */
    const large = yield* Ref.make(0)

    /** Counts an attempt of `item` in (1) or out (-1) of its destination's, its organization's and the large lane's. */
    const count = (item: DueDelivery, by: 1 | -1) =>
      Effect.zipRight(
        Effect.zipRight(
          Ref.update(byDestination, (map) => adjusted(map, item.destination, by)),
          Ref.update(byOrganization, (map) => adjusted(map, item.organizationId, by))
        ),
        item.large ? Ref.update(large, (n) => n + by) : Effect.void
      )

    /** The shares as they stand, for one look. */
    const look: Effect.Effect<Look> = Effect.gen(function*() {
      const busy = yield* Ref.get(byDestination)
      const free = slots - countOf(busy)
      const perDestinationUsed = new Map(HashMap.toEntries(busy))
      const perOrganizationUsed = new Map(HashMap.toEntries(yield* Ref.get(byOrganization)))
      let largeFree = LARGE_LANE - (yield* Ref.get(large))
      const skip: AtTheirShare = {
        destinations: [...perDestinationUsed].filter(([, used]) => used >= share).map(([destination]) => destination),
        organizationIds: [...perOrganizationUsed].filter(([, used]) => used >= organizationShare).map(([id]) => id)
      }
      const choose = (candidates: ReadonlyArray<DueDelivery>) => {
        const chosen: Array<DueDelivery> = []
        for (const candidate of candidates) {
          if (chosen.length === free) break
          const used = perDestinationUsed.get(candidate.destination) ?? 0
          const organizationUsed = perOrganizationUsed.get(candidate.organizationId) ?? 0
          if (used >= share || organizationUsed >= organizationShare) continue
          if (candidate.large) {
            if (largeFree <= 0) continue
            largeFree--
          }
          perDestinationUsed.set(candidate.destination, used + 1)
          perOrganizationUsed.set(candidate.organizationId, organizationUsed + 1)
          chosen.push(candidate)
        }
        return chosen
      }
      return { free, laneFree: largeFree > 0, skip, choose }
    })

    /** Whether no attempt is in flight. */
    const idle = Effect.map(Ref.get(byDestination), (map) => HashMap.size(map) === 0)

    return { count, look, idle } as const
  })

export type InFlight = Effect.Effect.Success<ReturnType<typeof makeInFlight>>
