/**
 * How the set-based statements of imports (PersonBatches.ts) find the rows their batch names: the
 * batch, a JSON array, drives, and each of its rows finds its match by an index, whatever the
 * planner thinks of the batch's size and the tables' statistics (Db/Dialect.ts `probe`).
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
  d.probe(
    "persons",
    "p",
    sql`p.organization_id = ${organizationId} AND p.email_key = ${emailKey} AND p.archived_at IS NULL`,
    { columns, atMostOne: true }
  )
