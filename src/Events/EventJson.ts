/**
 * An event row's JSON columns as the types the API shows them: virtual locations, tags, images,
 * RSVP questions, custom column titles and reminders, each checked by a guard (Domain/JsonGuard.ts) rather
 * than cast. Events are rendered by the page, and the questions and columns are read for every
 * guest-list request and RSVP answer, so the checks are the cheap kind.
 */
import { arrayOf, isString, nullOr, parseChecked, struct } from "../Domain/JsonGuard.js"
import type { Event } from "./Domain.js"
import type { EventRow } from "./EventRow.js"

const isStrings = arrayOf(isString)
const isVirtualLocations = arrayOf(struct({ url: nullOr(isString), password: nullOr(isString), phoneNumber: nullOr(isString), sourceType: nullOr(isString) }))
const isImages = arrayOf(struct({ type: isString, url: isString }))
const isQuestions = arrayOf(struct({ title: isString, description: nullOr(isString) }))

export const virtualLocationsOf = (event: Pick<EventRow, "virtual_locations">): Event["virtualLocations"] =>
  parseChecked(isVirtualLocations, event.virtual_locations, "virtual locations")

export const eventTagsOf = (event: Pick<EventRow, "event_tags">): Event["eventTags"] => parseChecked(isStrings, event.event_tags, "event tags")

export const imagesOf = (event: Pick<EventRow, "images">): Event["images"] => parseChecked(isImages, event.images, "event images")

export const rsvpQuestionsOf = (event: Pick<EventRow, "rsvp_questions">): Event["rsvpQuestions"] =>
  parseChecked(isQuestions, event.rsvp_questions, "RSVP questions")

/** The titles of the event's custom guest columns. */
export const customColumnsOf = (event: Pick<EventRow, "custom_columns">): Event["customColumns"] =>
  parseChecked(isStrings, event.custom_columns, "custom column titles")

/** The reminders before the start, as ISO 8601 durations (`P1D`, `PT2H`). */
export const remindersOf = (event: Pick<EventRow, "reminders">): Event["reminders"] => parseChecked(isStrings, event.reminders, "reminders")
