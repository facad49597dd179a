/**
 * What lower features ask of the guest lists, answered here: a purchase's guests (Payments'
 * `GuestLinks`) and a person's events (Persons' `EventHistory`). src/Server.ts provides both.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { GuestLinks } from "../Payments/GuestLinks.js"
import { EventHistory } from "../Persons/EventHistory.js"
import { HistoryEntry } from "./Domain.js"
import { GuestReads } from "./GuestReads.js"

/** A guest's RSVP history as the events-of-a-person query aggregates it (one person at a time: decoded). */
const decodeHistory = Schema.decodeSync(Schema.parseJson(Schema.Array(HistoryEntry)))

export const GuestLinksLive = Layer.effect(
  GuestLinks,
  Effect.map(GuestReads, (reads) => ({
    onList: (eventId, organizationId, personPublicIds) =>
      Effect.map(
        reads.activeLinks(eventId, organizationId, personPublicIds),
        (links) => new Map([...links].map(([publicId, link]) => [publicId, link.person_id] as const))
      )
  }))
).pipe(Layer.provide(GuestReads.Default))

export const EventHistoryLive = Layer.effect(
  EventHistory,
  Effect.map(GuestReads, (reads) => ({
    ofPerson: (personId, organizationId) =>
      Effect.map(reads.eventsOfPerson({ personId, organizationId }), (links) =>
        links.map((link) => ({
          eventId: link.public_id,
          name: link.name,
          slug: link.slug,
          date: link.primary_date,
          rsvpStatus: link.rsvp_status,
          rsvpStatusHistory: decodeHistory(link.history),
          attendance: link.attendance_status
        })))
  }))
).pipe(Layer.provide(GuestReads.Default))
