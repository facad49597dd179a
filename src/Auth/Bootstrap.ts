/**
 * Start-up bootstrap (README.md, "Organizations, members and tokens"), idempotent: the `BOOTSTRAP_*` organization, Super Admin and
 * API token are created when missing. With no `BOOTSTRAP_*` at all and an empty database, a
 * `default` organization, an `admin@localhost` Super Admin with a random password and an API
 * token are created; they are handed to the start-up announcement, which prints them once.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { AppConfig, type Bootstrap } from "../Config/AppConfig.js"
import { Ids } from "../Domain/Ids.js"
import { Members } from "../Organizations/Members.js"
import { Organizations } from "../Organizations/Organizations.js"
import { ApiTokens } from "./ApiTokens.js"

export interface FirstStartCredentials {
  readonly organizationSlug: string
  readonly adminEmail: string
  readonly adminPassword: Redacted.Redacted
  readonly apiToken: Redacted.Redacted
}

/** Credentials generated on this start, to print once; none on later starts. */
export class FirstStart extends Context.Tag("Convene/FirstStart")<FirstStart, Option.Option<FirstStartCredentials>>() {}

const applyConfigured = (bootstrap: Bootstrap) =>
  Effect.gen(function*() {
    const organizations = yield* Organizations
    const organization = yield* organizations.find(bootstrap.orgSlug).pipe(Effect.flatMap(Option.match({
      onSome: Effect.succeed,
      onNone: () => organizations.create({ slug: bootstrap.orgSlug, name: bootstrap.orgName })
    })))
    if (Option.isSome(bootstrap.admin)) {
      const { email, password } = bootstrap.admin.value
      const members = yield* Members
      const current = yield* members.active(organization.id)
      if (!current.some((m) => m.email.toLowerCase() === email.toLowerCase())) {
        // operator configuration: an existing user is added directly and keeps their password
        yield* members.addDirectly(organization, {
          email,
          password: Option.some(password),
          firstName: null,
          lastName: null,
          role: "Super Admin"
        })
      }
    }
    const tokens = yield* ApiTokens
    if (Option.isSome(bootstrap.apiToken) && !(yield* tokens.apiTokenExists(bootstrap.apiToken.value))) {
      yield* tokens.registerApiToken(organization.id, "bootstrap", bootstrap.apiToken.value)
    }
  })

const firstStart = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const organizations = yield* Organizations
  const ids = yield* Ids
  const rows = yield* sql`SELECT count(*) AS n FROM organizations`.pipe(Effect.orDie)
  if (Number(rows[0]!["n"]) > 0) return Option.none<FirstStartCredentials>()
  const organization = yield* organizations.create({ slug: "default", name: "Default" })
  const adminPassword = Redacted.make(yield* ids.secret(18))
  yield* (yield* Members).addDirectly(organization, {
    email: "admin@localhost",
    password: Option.some(adminPassword),
    firstName: "Admin",
    lastName: null,
    role: "Super Admin"
  })
  const { token } = yield* (yield* ApiTokens).createApiToken(organization.id, "first start")
  return Option.some({ organizationSlug: organization.slug, adminEmail: "admin@localhost", adminPassword, apiToken: token })
})

export const BootstrapLive = Layer.effect(
  FirstStart,
  Effect.gen(function*() {
    const { bootstrap } = yield* AppConfig
    const sql = yield* SqlClient.SqlClient
    // in one transaction: instances starting together on one PostgreSQL database (or the service
    // and the CLI on one SQLite file) bootstrap one at a time, and the later ones find it done
    if (Option.isSome(bootstrap)) {
      yield* sql.withTransaction(applyConfigured(bootstrap.value))
      return Option.none()
    }
    return yield* sql.withTransaction(firstStart)
  }).pipe(Effect.orDie)
)
