/** Memberships as the member management sees them: by public user id, within one organization. */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { Role } from "../Domain/Role.js"
import { type OrganizationRowId, rowIdColumn } from "../Domain/RowIds.js"

export const OrganizationMemberRow = Schema.Struct({
  id: Schema.Number,
  public_id: Schema.String,
  email: Schema.String,
  first_name: Schema.NullOr(Schema.String),
  last_name: Schema.NullOr(Schema.String),
  role: Role
})
export type OrganizationMemberRow = typeof OrganizationMemberRow.Type

export class MembersRepo extends Effect.Service<MembersRepo>()("Convene/MembersRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /**
     * Taken first in a transaction that checks a rule over the organization's members (the last
     * Super Admin). Write transactions are serial already on both engines (SQLite's BEGIN
     * IMMEDIATE, PostgreSQL's global write lock in Db/Postgres.ts); this row lock would make
     * concurrent checks wait for each other without it.
     */
    const lockOrganization = (organizationId: OrganizationRowId) =>
      sql`UPDATE organizations SET name = name WHERE id = ${organizationId}`

    const byPublicId = SqlSchema.findOne({
      Request: Schema.Struct({ organizationId: rowIdColumn.organization, publicId: Schema.String }),
      Result: OrganizationMemberRow,
      execute: ({ organizationId, publicId }) =>
        sql`SELECT u.id, u.public_id, u.email, u.first_name, u.last_name, m.role
            FROM memberships m JOIN users u ON u.id = m.user_id
            WHERE m.organization_id = ${organizationId} AND u.public_id = ${publicId}`
    })

    const isMember = (organizationId: OrganizationRowId, userId: number) =>
      sql`SELECT 1 AS found FROM memberships WHERE organization_id = ${organizationId} AND user_id = ${userId}`.pipe(
        Effect.map((rows) => rows.length > 0)
      )

    const superAdmins = (organizationId: OrganizationRowId) =>
      sql`SELECT count(*) AS n FROM memberships WHERE organization_id = ${organizationId} AND role = 'Super Admin'`.pipe(
        Effect.map((rows) => Number(rows[0]!["n"]))
      )

    const setRole = (row: { organizationId: OrganizationRowId; userId: number; role: Role }) =>
      sql`UPDATE memberships SET role = ${row.role} WHERE organization_id = ${row.organizationId} AND user_id = ${row.userId}`

    const remove = (organizationId: OrganizationRowId, userId: number) =>
      sql`DELETE FROM memberships WHERE organization_id = ${organizationId} AND user_id = ${userId}`

    return { lockOrganization, byPublicId, isMember, superAdmins, setRole, remove } as const
  })
}) {}
