/** A person's rows as the repository reads them (PersonsRepo.ts and its parts), and what it takes. */
import type { SqlError } from "@effect/sql/SqlError"
import type * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { type OrganizationRowId, rowIdColumn } from "../Domain/RowIds.js"

export const PersonRow = Schema.Struct({
  id: rowIdColumn.person,
  public_id: Schema.String,
  first_name: Schema.String,
  last_name: Schema.String,
  email: Schema.String,
  profile_picture: Schema.NullOr(Schema.String),
  company: Schema.NullOr(Schema.String),
  position: Schema.NullOr(Schema.String),
  birthday: Schema.NullOr(Schema.String),
  address: Schema.NullOr(Schema.String),
  apartment: Schema.NullOr(Schema.String),
  city: Schema.NullOr(Schema.String),
  state: Schema.NullOr(Schema.String),
  country: Schema.NullOr(Schema.String),
  postal_code: Schema.NullOr(Schema.String),
  context_note: Schema.NullOr(Schema.String),
  archived_at: Schema.NullOr(Schema.String),
  phone: Schema.NullOr(Schema.String)
})
export type PersonRow = typeof PersonRow.Type

/** A person as an export writes it: the row with its creation time. */
export const ExportRow = Schema.Struct({ ...PersonRow.fields, created_at: Schema.String })
export type ExportRow = typeof ExportRow.Type

/** The person columns that an update may set, by API field name. */
export const profileColumns = {
  firstName: "first_name",
  lastName: "last_name",
  company: "company",
  position: "position",
  birthday: "birthday",
  address: "address",
  apartment: "apartment",
  city: "city",
  state: "state",
  country: "country",
  postalCode: "postal_code",
  contextNote: "context_note",
  profilePicture: "profile_picture"
} as const

/**
 * What a search or list finds: its page, and its total, which a caller reads only when the page
 * does not tell it. `totalKept`: the total is a number kept as persons are written, as cheap as
 * a lookup whatever the term, so it may be asked first (Search.ts `NameSearch`).
 */
export interface Found {
  readonly page: Effect.Effect<ReadonlyArray<PersonRow>, SqlError>
  readonly count: Effect.Effect<{ readonly total: number }, SqlError>
  readonly totalKept: boolean
}

export interface NewPersonRow {
  readonly publicId: string
  readonly organizationId: OrganizationRowId
  readonly firstName: string
  readonly lastName: string
  readonly email: string
  readonly company: string | null
  readonly position: string | null
  readonly birthday: string | null
  readonly address: string | null
  readonly apartment: string | null
  readonly city: string | null
  readonly state: string | null
  readonly country: string | null
  readonly postalCode: string | null
  readonly contextNote: string | null
  readonly profilePicture: string | null
  readonly createdAt: string
}
