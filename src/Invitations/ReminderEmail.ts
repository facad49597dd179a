/**
 * A reminder's words (CONTRACT §17): how soon the event starts, said first; the rest is the guests'
 * email template (GuestEmail.tsx): the event, when and where, the online links, their personal
 * link and their ticket.
 */
import type { GuestEmailOf } from "./GuestMail.js"

const UNITS: ReadonlyArray<readonly [number, string]> = [[7 * 86_400, "week"], [86_400, "day"], [3_600, "hour"], [60, "minute"]]

/** A time ahead in words, rounded to its largest unit: `1 day`, `2 hours`, `45 minutes` (`less than a minute` under one). */
export const timeAhead = (seconds: number): string => {
  for (const [size, unit] of UNITS) {
    if (seconds >= size) {
      const count = Math.round(seconds / size)
      return `${count} ${unit}${count === 1 ? "" : "s"}`
    }
  }
  return "less than a minute"
}

/** The words of a reminder of `eventName` sent `secondsLeft` before its start. */
export const reminderWords = (eventName: string, secondsLeft: number): Pick<GuestEmailOf, "subject" | "news" | "linkLabel"> => ({
  subject: `Reminder: ${eventName} starts in ${timeAhead(secondsLeft)}`,
  news: [`A reminder: ${eventName} starts in ${timeAhead(secondsLeft)}, and you have a place. Your ticket is below.`],
  linkLabel: "View or change your answer (say if you can't come)"
})
