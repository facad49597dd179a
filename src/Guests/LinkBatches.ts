/**
 * The rows of the set-based guest-list writes that imports run (GuestImportsRepo.ts), serialized
 * ahead of their transaction as the JSON arrays the statements read (`Dialect.rows`).
 */
import type { GuestValues } from "./GuestRows.js"
import type { GuestRowId } from "../Domain/RowIds.js"

/** Rows of one set-based statement of an import, serialized ahead as the JSON array `json_each` reads. */
export interface LinkBatch<_Row> {
  readonly size: number
  readonly json: string
}

const valuesOf = (v: GuestValues) => [v.rsvp_status, v.attendance_status, v.dietary_restrictions, v.rsvp_note, v.custom_columns]

/** A guest link to create for the active person with this email key, with its values. */
export interface NewLink {
  readonly emailKey: string
  readonly values: GuestValues
}

export const newLinksBatch = (links: ReadonlyArray<NewLink>): LinkBatch<NewLink> => ({
  size: links.length,
  json: JSON.stringify(links.map((l) => [l.emailKey, ...valuesOf(l.values)]))
})

/**
 * New values for an existing link (on the list again when it was removed), written only if the
 * link is still as the import found it (`expected`, `removedAt` included).
 */
export interface LinkUpdate {
  readonly id: GuestRowId
  readonly expected: GuestValues
  readonly removedAt: string | null
  readonly values: GuestValues
}

export const linkUpdatesBatch = (updates: ReadonlyArray<LinkUpdate>): LinkBatch<LinkUpdate> => ({
  size: updates.length,
  json: JSON.stringify(updates.map((u) => [u.id, ...valuesOf(u.expected), u.removedAt, ...valuesOf(u.values)]))
})

/** A link the import records history for without changing it: it must still be as found. */
export interface LinkCheck {
  readonly id: GuestRowId
  readonly expected: GuestValues
}

export const linkChecksBatch = (checks: ReadonlyArray<LinkCheck>): LinkBatch<LinkCheck> => ({
  size: checks.length,
  json: JSON.stringify(checks.map((c) => [c.id, ...valuesOf(c.expected)]))
})

/** An RSVP history entry for the guest of the active person with this email key. */
export interface NewHistory {
  readonly emailKey: string
  readonly status: string
  readonly actionType: "added" | "updated"
}

export const historyBatch = (entries: ReadonlyArray<NewHistory>): LinkBatch<NewHistory> => ({
  size: entries.length,
  json: JSON.stringify(entries.map((e) => [e.emailKey, e.status, e.actionType]))
})
