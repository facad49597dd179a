/** A person row as the API shows it: unset profile fields are left out, not sent as null. */
import type { Person } from "./Domain.js"
import type { PersonRow } from "./PersonsRepo.js"

export const toPerson = (row: PersonRow, customFields: Person["customFields"]): Person => {
  const person: { -readonly [K in keyof Person]: Person[K] } = {
    personId: row.public_id,
    firstName: row.first_name,
    lastName: row.last_name,
    email: row.email,
    phone: row.phone,
    archived: row.archived_at !== null,
    customFields
  }
  if (row.profile_picture !== null) person.profilePicture = row.profile_picture
  if (row.company !== null) person.company = row.company
  if (row.position !== null) person.position = row.position
  if (row.birthday !== null) person.birthday = row.birthday
  if (row.address !== null) person.address = row.address
  if (row.apartment !== null) person.apartment = row.apartment
  if (row.city !== null) person.city = row.city
  if (row.state !== null) person.state = row.state
  if (row.country !== null) person.country = row.country
  if (row.postal_code !== null) person.postalCode = row.postal_code
  return person
}
