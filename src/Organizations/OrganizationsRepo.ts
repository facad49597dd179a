/** Organizations, users and memberships in the database. */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { Role } from "../Domain/Role.js"
import { type OrganizationRowId, rowIdColumn } from "../Domain/RowIds.js"

export const OrganizationRow = Schema.Struct({ id: rowIdColumn.organization, slug: Schema.String, name: Schema.String })
export type OrganizationRow = typeof OrganizationRow.Type

export const UserRow = Schema.Struct({
  id: Schema.Number,
  public_id: Schema.String,
  email: Schema.String,
  first_name: Schema.NullOr(Schema.String),
  last_name: Schema.NullOr(Schema.String),
  password_hash: Schema.String
})
export type UserRow = typeof UserRow.Type

export const MemberRow = Schema.Struct({
  public_id: Schema.String,
  email: Schema.String,
  first_name: Schema.NullOr(Schema.String),
  last_name: Schema.NullOr(Schema.String),
  role: Role
})

export const MembershipRow = Schema.Struct({ organization_id: rowIdColumn.organization, slug: Schema.String, name: Schema.String, role: Role })
export type MembershipRow = typeof MembershipRow.Type

export class OrganizationsRepo extends Effect.Service<OrganizationsRepo>()("Convene/OrganizationsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const organizationBySlug = SqlSchema.findOne({
      Request: Schema.String,
      Result: OrganizationRow,
      execute: (slug) => sql`SELECT id, slug, name FROM organizations WHERE slug = ${slug}`
    })

    const organizationById = SqlSchema.findOne({
      Request: Schema.Number,
      Result: OrganizationRow,
      execute: (id) => sql`SELECT id, slug, name FROM organizations WHERE id = ${id}`
    })

    const insertOrganization = (row: { slug: string; name: string; createdAt: string }) =>
      sql`INSERT INTO organizations (slug, name, created_at) VALUES (${row.slug}, ${row.name}, ${row.createdAt})
          RETURNING id, slug, name`.pipe(Effect.flatMap(Schema.decodeUnknown(Schema.Tuple(OrganizationRow))), Effect.map(([o]) => o))

    const userByEmail = SqlSchema.findOne({
      Request: Schema.String,
      Result: UserRow,
      execute: (emailKey) =>
        sql`SELECT id, public_id, email, first_name, last_name, password_hash FROM users WHERE email_key = ${emailKey}`
    })

    const userById = SqlSchema.findOne({
      Request: Schema.Number,
      Result: UserRow,
      execute: (id) => sql`SELECT id, public_id, email, first_name, last_name, password_hash FROM users WHERE id = ${id}`
    })

    const insertUser = (row: {
      publicId: string
      email: string
      emailKey: string
      firstName: string | null
      lastName: string | null
      passwordHash: string
      createdAt: string
    }) =>
      sql`INSERT INTO users (public_id, email, email_key, first_name, last_name, password_hash, created_at)
          VALUES (${row.publicId}, ${row.email}, ${row.emailKey}, ${row.firstName}, ${row.lastName}, ${row.passwordHash}, ${row.createdAt})
          RETURNING id`.pipe(Effect.map((rows) => Number(rows[0]!["id"])))

    const setPasswordHash = (row: { userId: number; passwordHash: string }) =>
      sql`UPDATE users SET password_hash = ${row.passwordHash} WHERE id = ${row.userId}`

    const membershipsOfUser = SqlSchema.findAll({
      Request: Schema.Number,
      Result: MembershipRow,
      execute: (userId) =>
        sql`SELECT m.organization_id, o.slug, o.name, m.role FROM memberships m JOIN organizations o ON o.id = m.organization_id
            WHERE m.user_id = ${userId} ORDER BY o.slug`
    })

    const membership = SqlSchema.findOne({
      Request: Schema.Struct({ userId: Schema.Number, organizationSlug: Schema.String }),
      Result: MembershipRow,
      execute: ({ organizationSlug, userId }) =>
        sql`SELECT m.organization_id, o.slug, o.name, m.role FROM memberships m JOIN organizations o ON o.id = m.organization_id
            WHERE m.user_id = ${userId} AND o.slug = ${organizationSlug}`
    })

    const insertMembership = (row: { organizationId: OrganizationRowId; userId: number; role: Role; createdAt: string }) =>
      sql`INSERT INTO memberships (organization_id, user_id, role, created_at)
          VALUES (${row.organizationId}, ${row.userId}, ${row.role}, ${row.createdAt})`

    const members = SqlSchema.findAll({
      Request: Schema.Number,
      Result: MemberRow,
      execute: (organizationId) =>
        sql`SELECT u.public_id, u.email, u.first_name, u.last_name, m.role FROM memberships m JOIN users u ON u.id = m.user_id
            WHERE m.organization_id = ${organizationId} ORDER BY m.created_at, u.id`
    })

    return {
      organizationBySlug,
      organizationById,
      insertOrganization,
      userByEmail,
      userById,
      insertUser,
      setPasswordHash,
      membershipsOfUser,
      membership,
      insertMembership,
      members
    } as const
  })
}) {}
