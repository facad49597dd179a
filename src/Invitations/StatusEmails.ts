/**
 * Status emails (CONTRACT §17): the answer to the guest lists' `StatusMailer` port
 * (Guests/StatusMail.ts, which decides who is told and gathers their link and ticket). Each guest's
 * email says what changed (StatusEmail.ts) in the guests' email template, queued through the
 * outbox in the transaction of the change (GuestMail.ts). src/Server.ts provides it.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { StatusMailer } from "../Guests/StatusMail.js"
import { GuestMail } from "./GuestMail.js"
import { statusWords } from "./StatusEmail.js"

export const StatusMailerLive = Layer.effect(
  StatusMailer,
  Effect.map(GuestMail, (mail) => ({
    configured: mail.configured,
    send: (event, guests) =>
      Effect.asVoid(mail.queue(
        event,
        guests.map((guest) => ({
          ...statusWords(guest.news, event.name),
          event,
          to: guest.email,
          firstName: guest.firstName,
          rsvpLink: guest.rsvpLink,
          ticketCode: guest.ticketCode
        }))
      ))
  }))
).pipe(Layer.provide(GuestMail.Default))
