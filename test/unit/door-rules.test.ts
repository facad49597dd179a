/**
 * The door's rules, pure (src/Guests/DoorRules.ts, src/Guests/DoorLinkExpiry.ts, and the words of
 * src/Web/Guests/DoorTaps.ts): the counter counts Accepted guests only (a declined guest let in is
 * apart), a guest already in is never checked in again, a status other than Accepted needs a
 * confirmation that names it, and a door link ends at the end of its event's day in the event's zone.
 */
import { describe, expect, it } from "@effect/vitest"
import { endOfDayIn, endOfLocalDay } from "../../src/Guests/DoorLinkExpiry.js"
import { doorCounts, verdictOf } from "../../src/Guests/DoorRules.js"
import { messageOf, toneOf } from "../../src/Web/Guests/DoorTaps.js"

const guest = (rsvp: string, checkedIn: boolean) => ({ id: rsvp, name: `${rsvp} Guest`, rsvp, in: checkedIn, code: null })

describe("the door's rules", () => {
  it("counts checked-in Accepted guests of Accepted guests; who came without a yes apart", () => {
    expect(doorCounts([])).toEqual({ checkedIn: 0, expected: 0, extra: 0 })
    // one expected guest who has not come, one declined guest let in: not "1 of 1"
    expect(doorCounts([guest("Accepted", false), guest("Declined", true)])).toEqual({ checkedIn: 0, expected: 1, extra: 1 })
    expect(doorCounts([guest("Accepted", true), guest("Accepted", false), guest("Waitlisted", false), guest("Maybe", true)]))
      .toEqual({ checkedIn: 1, expected: 2, extra: 1 })
  })

  it("never checks a guest in twice; a status other than Accepted only once confirmed", () => {
    for (const status of ["Accepted", "Declined", "Invited"]) expect(verdictOf(guest(status, true), true)).toBe("AlreadyIn")
    expect(verdictOf(guest("Accepted", false), false)).toBe("CheckIn")
    for (const status of ["Declined", "Waitlisted", "Pending", "Maybe", "Invited"]) {
      expect(verdictOf(guest(status, false), false)).toBe("NeedsConfirmation")
      expect(verdictOf(guest(status, false), true)).toBe("CheckIn")
      const asked = { _tag: "NeedsConfirmation", guest: guest(status, false) } as const
      expect(messageOf(asked, "UTC", true)).toBe(`${status} Guest answered ${status}, not Accepted. Check them in anyway?`)
      expect(toneOf(asked)).toBe("confirm")
    }
  })

  it("names another event only where the door may (not through a door link)", () => {
    const other = { _tag: "OtherEvent", code: "K7QXM3M9PD", eventName: "Secret Summit" } as const
    expect(messageOf(other, "UTC", true)).toContain("Secret Summit")
    expect(messageOf(other, "UTC", false)).toBe("Ticket K7QXM-3M9PD is another event's. Nothing was changed.")
    expect(toneOf(other)).toBe("refused")
  })

  it("ends a door link at the end of the event's day in its zone, clock changes included", () => {
    expect(endOfDayIn("2031-06-01T20:00:00+02:00", "Europe/Paris")).toBe("2031-06-01T22:00:00.000Z")
    expect(endOfDayIn("2031-06-01T23:30:00-07:00", "America/Los_Angeles")).toBe("2031-06-02T07:00:00.000Z")
    // the night the clocks go forward in Berlin (29 March 2026): midnight is still winter time
    expect(endOfDayIn("2026-03-28T10:00:00+01:00", "Europe/Berlin")).toBe("2026-03-28T23:00:00.000Z")
    expect(endOfDayIn("2031-06-01T10:00:00+05:30", "Asia/Kolkata")).toBe("2031-06-01T18:30:00.000Z")
    expect(endOfLocalDay(2031, 12, 31, "UTC")).toBe("2032-01-01T00:00:00.000Z")
  })
})
