/**
 * How the set-based statements of imports (PersonBatches.ts) find the rows their batch names: the
 * batch, a JSON array, drives, and each of its rows finds its match by an index.
 *
 * - SQLite: `CROSS JOIN` keeps the batch as the outer loop (SQLite never reorders it).
 * - PostgreSQL: the planner's estimate of a JSON array is a fixed 100 rows, and a table's
 *   statistics lag behind a bulk write (an import's own uncommitted rows, and its rows for a minute
 *   after its commit, until autovacuum analyzes them). With both wrong, it may put the table
 *   outside and the batch inside, scanning the whole batch for each of the table's rows: 26 s
 *   instead of 11 ms for 5,000 emails against 50,000 persons, seen under the 50,000-row import
 *   test. A `LATERAL` subquery with `LIMIT` or `OFFSET` is never flattened into the join, so the
 *   batch stays outside and each of its rows probes the index, whatever the statistics say.
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import type * as Statement from "@effect/sql/Statement"
import type { Dialect } from "../Db/Dialect.js"
import type { OrganizationRowId } from "../Domain/RowIds.js"

/**
 * `<join> persons p` on the organization's active person whose email key is `emailKey` (one at
 * most: the key is unique among active persons), for a `FROM` of a batch `j`. `columns` are the
 * columns of `p` the statement reads.
 */
export const activePersonByEmail = (
  sql: SqlClient.SqlClient,
  d: Dialect,
  organizationId: OrganizationRowId,
  emailKey: Statement.Fragment,
  columns = "p.id"
): Statement.Fragment =>
  d.name === "pg"
    ? sql`CROSS JOIN LATERAL (SELECT ${sql.literal(columns)} FROM persons p
            WHERE p.organization_id = ${organizationId} AND p.email_key = ${emailKey} AND p.archived_at IS NULL LIMIT 1) p`
    : sql`CROSS JOIN persons p ON p.organization_id = ${organizationId} AND p.email_key = ${emailKey} AND p.archived_at IS NULL`
