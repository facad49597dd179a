/**
 * `GET /event/:id/guestlist/search` parameters: exactly one of `personIds` (comma-separated, at most
 * 50), `email` (exact) or `name` (substring), the limits of docs/integrators.md#searching-guests-and-rsvp-links.
 */
import * as Either from "effect/Either"
import { InvalidRequest, Issue } from "../Domain/Errors.js"
import type { GuestFilter } from "./GuestsRepo.js"

export interface SearchParams {
  readonly personIds?: string | undefined
  readonly email?: string | undefined
  readonly name?: string | undefined
  readonly limit?: number | undefined
  readonly skip?: number | undefined
  readonly generateRsvpLinks?: boolean | undefined
}

const MAX_PERSON_IDS = 50

/** The one filter the parameters name, or a 400 saying what is wrong with them. */
export const searchFilter = (params: SearchParams): Either.Either<GuestFilter, InvalidRequest> => {
  const given = (["personIds", "email", "name"] as const).filter((key) => params[key] !== undefined)
  if (given.length !== 1) {
    return Either.left(
      new InvalidRequest({
        message: "Give exactly one of personIds, email or name",
        issues: [new Issue({ path: given[1] ?? "personIds", message: "give exactly one of personIds, email or name" })]
      })
    )
  }
  if (params.personIds !== undefined) {
    const personIds = [...new Set(params.personIds.split(",").map((s) => s.trim()).filter((s) => s !== ""))]
    if (personIds.length === 0) return Either.left(InvalidRequest.at("personIds", "must name at least one person"))
    if (personIds.length > MAX_PERSON_IDS) return Either.left(InvalidRequest.at("personIds", `must name at most ${MAX_PERSON_IDS} persons`))
    return Either.right({ _tag: "PersonIds", personIds })
  }
  if (params.email !== undefined) {
    if (params.email.trim() === "") return Either.left(InvalidRequest.at("email", "must not be empty"))
    return Either.right({ _tag: "Email", email: params.email })
  }
  if (params.name!.trim() === "") return Either.left(InvalidRequest.at("name", "must not be empty"))
  return Either.right({ _tag: "Name", name: params.name! })
}
