/**
 * A status email's words (CONTRACT §17): what changed for the guest, said first; the rest is the
 * guests' email template (GuestEmail.tsx): the event, when and where, their link, their ticket
 * when `Accepted`.
 */
import type { StatusNews } from "../Guests/StatusMail.js"

export interface StatusWords {
  readonly subject: string
  readonly news: ReadonlyArray<string>
  readonly linkLabel: string
}

/** What the guest is told of `news` about `eventName`. */
export const statusWords = (news: StatusNews, eventName: string): StatusWords => {
  switch (news.kind) {
    case "approved":
      return news.rsvpStatus === "Accepted"
        ? {
          subject: `You're in: ${eventName}`,
          news: ["Your registration was approved: you have a place. Your ticket is below."],
          linkLabel: "View or change your answer"
        }
        : {
          subject: `You're on the waitlist: ${eventName}`,
          news: [
            "Your registration was approved, but the event is full: you are on the waitlist.",
            "If a place frees up, it goes to the guests who have waited longest, and you will get an email with your ticket."
          ],
          linkLabel: "View or change your answer"
        }
    case "declined":
      return {
        subject: `Your registration for ${eventName}`,
        news: ["We are sorry: your registration was not accepted, so there is no place for you at this event."],
        linkLabel: "View your answer"
      }
    case "promoted":
      return {
        subject: `A place for you: ${eventName}`,
        news: ["A place freed up and it is yours: you are off the waitlist and have a place. Your ticket is below."],
        linkLabel: "View or change your answer (say if you can't come)"
      }
  }
}
