/**
 * The outbox's claims of a killed instance, on PostgreSQL (src/Outbox/Instances.ts): another
 * instance releases them once the killed one's heartbeat is older than `STALE_AFTER` (15 s), by
 * the database's clock. Tests about what happens after such a release, not about its delay, age
 * the dead instances' heartbeats by `STALE_AFTER` instead of waiting for it: the release that
 * follows is the service's own (its claimer's sweep, every 2 s). The delay itself, in real time,
 * is what test/slow/pg/database-outage.test.ts measures (an instance cut off, alive), and the
 * release rule test/repo/outbox.test.ts.
 *
 * Only while no instance runs on the database (each killed one has exited): the claims of a live
 * instance whose heartbeat were aged could be released before its next heartbeat (2 s), and
 * attempted twice.
 */
import { Duration, Effect } from "effect"
import { STALE_AFTER } from "../../src/Outbox/Instances.js"
import { type DatabaseEnv, onPostgres, queryDatabase } from "./Engine.js"

/**
 * Ages by `STALE_AFTER` every heartbeat in `outbox_instances` (PostgreSQL; SQLite keeps none: a
 * new process releases every claim at start). No instance may be running (see the top).
 */
export const ageDeadHeartbeats = (env: DatabaseEnv) =>
  onPostgres
    ? Effect.promise(() =>
      queryDatabase(env, `UPDATE outbox_instances SET heartbeat_at = heartbeat_at - ${Duration.toMillis(STALE_AFTER)}`)
    ).pipe(Effect.asVoid)
    : Effect.void
