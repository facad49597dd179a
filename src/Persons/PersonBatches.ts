/**
 * The rows of the set-based person writes that imports run (contacts and guest-list imports alike),
 * serialized ahead of their transaction as the JSON arrays `json_each` reads: the transaction then
 * spends its time in SQLite, not in building its parameters. `PersonWrites` runs them.
 */
import * as Schema from "effect/Schema"
import { nameGrams } from "../Db/SearchKeys.js"
import { nameKeyOf } from "./Keys.js"
import { emailKeyOf } from "../Domain/Fields.js"
import { type PersonRowId, rowIdColumn } from "../Domain/RowIds.js"

/**
 * An active person an import matched by email, with what filling its blank fields needs to know:
 * which of `importedColumns` are blank (bit i for column i) and whether it has a phone.
 */
export const MatchRow = Schema.Struct({
  id: rowIdColumn.person,
  public_id: Schema.String,
  email_key: Schema.String,
  blanks: Schema.Number,
  has_phone: Schema.Literal(0, 1)
})
export type MatchRow = typeof MatchRow.Type

/** The profile columns an import may fill, in the order `insertMany` and `fillBlanksMany` take them. */
export const importedColumns = [
  "first_name",
  "last_name",
  "profile_picture",
  "company",
  "position",
  "birthday",
  "address",
  "apartment",
  "city",
  "state",
  "country",
  "postal_code",
  "context_note"
] as const
export type ImportedColumn = (typeof importedColumns)[number]

/** A person an import creates: its values in `importedColumns` order (null: no value). */
export interface ImportedPerson {
  readonly publicId: string
  readonly email: string
  readonly values: ReadonlyArray<string | null>
}

/**
 * Blank fields an import fills on an existing person, in `importedColumns` order (null: leave as
 * is). The person is the one with this id, still active and with this email key.
 */
export interface FilledPerson {
  readonly id: PersonRowId
  readonly emailKey: string
  readonly values: ReadonlyArray<string | null>
}

/** Rows for one set-based statement, serialized ahead (as the JSON array `json_each` reads). */
export interface RowBatch<_Row> {
  readonly size: number
  readonly json: string
}

/**
 * Persons to create, as `insertMany` takes them; with `grams`, the n-grams of one to `longest`
 * characters of their names and how many of them hold each (`[gram, persons]` pairs as a JSON
 * array), which `insertMany` adds to the name search's counts in one statement.
 */
export interface NewPersonsBatch extends RowBatch<ImportedPerson> {
  readonly grams: (longest: number) => string
}

export const newPersonsBatch = (persons: ReadonlyArray<ImportedPerson>): NewPersonsBatch => {
  const nameKeys = persons.map((p) => nameKeyOf(p.values[0] ?? "", p.values[1] ?? ""))
  return {
    size: persons.length,
    json: JSON.stringify(persons.map((p, i) => [p.publicId, p.email, emailKeyOf(p.email), nameKeys[i], ...p.values])),
    grams: (longest) => {
      const counts = new Map<string, number>()
      for (const nameKey of nameKeys) for (const gram of nameGrams(nameKey, longest)) counts.set(gram, (counts.get(gram) ?? 0) + 1)
      return JSON.stringify([...counts])
    }
  }
}

/** Blank fields to fill, as `fillBlanksMany` takes them. */
export const filledPersonsBatch = (persons: ReadonlyArray<FilledPerson>): RowBatch<FilledPerson> => ({
  size: persons.length,
  json: JSON.stringify(persons.map((p) => [p.id, p.emailKey, ...p.values]))
})

/** A first phone for the active person with this email key. */
export interface FirstPhone {
  readonly emailKey: string
  readonly number: string
}

/** First phones, as `addFirstPhones` takes them. */
export const firstPhonesBatch = (phones: ReadonlyArray<FirstPhone>): RowBatch<FirstPhone> => ({
  size: phones.length,
  json: JSON.stringify(phones.map((p) => [p.emailKey, p.number]))
})
