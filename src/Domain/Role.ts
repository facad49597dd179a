import * as Schema from "effect/Schema"
/** Organization roles, highest first (docs/integrators.md#roles). */
export const roles = ["Super Admin", "Admin", "Team Member", "Viewer"] as const

export const Role = Schema.Literal(...roles).annotations({ identifier: "Role" })
export type Role = typeof Role.Type

const rank = (role: Role): number => roles.length - roles.indexOf(role)

export const atLeast = (role: Role, required: Role): boolean => rank(role) >= rank(required)

export const highest = (all: ReadonlyArray<Role>): Role | undefined =>
  all.reduce<Role | undefined>((best, role) => (best === undefined || rank(role) > rank(best) ? role : best), undefined)
