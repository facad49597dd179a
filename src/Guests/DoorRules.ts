/**
 * The door's rules (CONTRACT §17), pure, as the door page and its script apply them: who is
 * expected, who is counted, and when a check-in needs a confirmation first.
 */

/** A guest as the door knows them: what it searches, shows and counts. */
export interface DoorEntry {
  /** The person's public id. */
  readonly id: string
  readonly name: string
  /** Left out for a door link (names, status and attendance only). */
  readonly email?: string
  /** The RSVP status. */
  readonly rsvp: string
  /** Checked in (attendance `Attended`). */
  readonly in: boolean
  /** The ticket's code, when the guest has one (only an `Accepted` guest gets one). */
  readonly code: string | null
}

/**
 * The door's counter: "`checkedIn` checked in of `expected` expected" counts only the guests who
 * said yes (`Accepted`); who came without a yes is `extra`, apart, so that a declined guest let in
 * never reads as an expected one who came.
 */
export interface DoorCounts {
  readonly checkedIn: number
  readonly expected: number
  readonly extra: number
}

export const doorCounts = (entries: Iterable<Pick<DoorEntry, "rsvp" | "in">>): DoorCounts => {
  let checkedIn = 0
  let expected = 0
  let extra = 0
  for (const entry of entries) {
    if (entry.rsvp === "Accepted") {
      expected++
      if (entry.in) checkedIn++
    } else if (entry.in) {
      extra++
    }
  }
  return { checkedIn, expected, extra }
}

/** What a tap (or a scan) on a guest does. */
export type DoorVerdict =
  /** Checked in already: said so, nothing changes. */
  | "AlreadyIn"
  /** Not `Accepted`: checked in only once the door staff confirm, having read the status. */
  | "NeedsConfirmation"
  | "CheckIn"

export const verdictOf = (guest: Pick<DoorEntry, "rsvp" | "in">, confirmed: boolean): DoorVerdict =>
  guest.in ? "AlreadyIn" : guest.rsvp !== "Accepted" && !confirmed ? "NeedsConfirmation" : "CheckIn"

/** The name as the door sorts and shows it. */
export const doorName = (firstName: string, lastName: string): string => `${firstName} ${lastName}`.trim()

const collator = new Intl.Collator("en", { sensitivity: "base", numeric: true })

/** The list by name, as the door shows it. */
export const byName = (a: DoorEntry, b: DoorEntry): number => collator.compare(a.name, b.name) || a.id.localeCompare(b.id)
