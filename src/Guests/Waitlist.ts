/**
 * The waitlist's rule (CONTRACT §16, "Waitlist promotion"): when places free up on an event with
 * capacity, the guests `Waitlisted` longest take them, in that order, until they are filled. Pure:
 * WaitlistPromotion.ts reads the event, its `Accepted` count and its queue in the writing
 * transaction and writes what this decides.
 */

/** An event's places as a promotion sees them. */
export interface Places {
  /** Whether the event limits its `Accepted` guests (`capacity_enabled`). */
  readonly capacityEnabled: boolean
  /** The limit; null while enabled means no limit was set. */
  readonly capacity: number | null
  /** Guests holding a place now (`Accepted`). */
  readonly accepted: number
}

/** A guest waiting for a place. */
export interface Waiting<Id> {
  readonly guestId: Id
  /**
   * Since when the guest is `Waitlisted`: the position of the first history entry of its current
   * run of `Waitlisted` entries (history ids grow in commit order: writes are serialized), or null
   * when no history entry says so (such guests wait behind every dated one).
   */
  readonly since: number | null
}

/** Places left: none past the capacity, every one without a limit. */
export const freePlaces = (places: Places): number =>
  !places.capacityEnabled || places.capacity === null ? Number.POSITIVE_INFINITY : Math.max(0, places.capacity - places.accepted)

/** Whether the queue waits longer than another: dated before undated, then by date, then by guest. */
const byWait = <Id extends number>(a: Waiting<Id>, b: Waiting<Id>) =>
  a.since === b.since
    ? a.guestId - b.guestId
    : a.since === null
    ? 1
    : b.since === null
    ? -1
    : a.since - b.since

/** The waiting guests who take the free places, those waiting longest first; never past the capacity. */
export const promoted = <Id extends number>(places: Places, queue: ReadonlyArray<Waiting<Id>>): ReadonlyArray<Id> => {
  const free = freePlaces(places)
  if (free === 0 || queue.length === 0) return []
  return [...queue].sort(byWait).slice(0, free).map((w) => w.guestId)
}

/** Whether a guest's move frees a place: it held one (`Accepted`) and holds none after (another status, or removed). */
export const freesPlace = (before: string, after: string | undefined): boolean => before === "Accepted" && after !== "Accepted"

/**
 * The statuses an approval of `count` registrations (`Pending`, in the order given) sets: `Accepted`
 * while places remain, `Waitlisted` past them (CONTRACT §16, "Approval").
 */
export const approvedStatuses = (places: Places, count: number): Array<"Accepted" | "Waitlisted"> => {
  const free = freePlaces(places)
  return Array.from({ length: count }, (_, i) => (i < free ? "Accepted" : "Waitlisted"))
}
