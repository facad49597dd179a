/**
 * The guest list in the database (`event_guests`, `invites`, `rsvp_history`), as one service whose
 * statements live in four parts: the list's reads (GuestListRepo.ts), one link at a time
 * (GuestLinksRepo.ts), CSV exports and imports (GuestImportsRepo.ts), and the waitlist
 * (WaitlistRepo.ts). Its rows and what its queries take are GuestRows.ts and LinkBatches.ts
 * (re-exported here).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { DirectSql } from "../Db/DirectSql.js"
import { guestImportStatements } from "./GuestImportsRepo.js"
import { guestLinkStatements } from "./GuestLinksRepo.js"
import { guestListReads } from "./GuestListRepo.js"
import { waitlistStatements } from "./WaitlistRepo.js"

export {
  ExportGuestRow,
  type GuestFilter,
  GuestJsonRow,
  type GuestPageQuery,
  GuestRow,
  GuestValues,
  ImportLinkRow,
  LinkRow,
  type ListJsonShared
} from "./GuestRows.js"
export {
  historyBatch,
  type LinkBatch,
  type LinkCheck,
  linkChecksBatch,
  type LinkUpdate,
  linkUpdatesBatch,
  type NewHistory,
  type NewLink,
  newLinksBatch
} from "./LinkBatches.js"

export class GuestsRepo extends Effect.Service<GuestsRepo>()("Convene/GuestsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const direct = yield* DirectSql
    return {
      ...guestListReads(sql, direct),
      ...guestLinkStatements(sql, direct),
      ...guestImportStatements(sql, direct),
      ...waitlistStatements(sql, direct)
    } as const
  })
}) {}
