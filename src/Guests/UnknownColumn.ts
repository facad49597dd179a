/** The custom columns a guest-list update may name: those its event defines (CONTRACT §7). */
import { customColumnsOf } from "../Events/EventJson.js"
import type { EventRow } from "../Events/EventRow.js"
import type { GuestUpdate } from "./Domain.js"

/** The path of the first custom column an update names that the event does not have, if any. */
export const unknownColumn = (event: EventRow, items: ReadonlyArray<GuestUpdate>) => {
  const columns = new Set(customColumnsOf(event))
  for (const [i, item] of items.entries()) {
    const unknown = Object.keys(item.customColumns ?? {}).find((title) => !columns.has(title))
    if (unknown !== undefined) return `guests.${i}.customColumns.${unknown}`
  }
  return undefined
}
