/**
 * The admin CLI's commands: organizations, members, users and API tokens, over the same services and
 * database the server uses (it may run beside the server: SQLite's busy timeout covers both).
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { roles } from "../Domain/Role.js"
import { ApiTokens } from "../Auth/ApiTokens.js"
import { Passwords } from "../Auth/Passwords.js"
import { Members } from "../Organizations/Members.js"
import { Organizations } from "../Organizations/Organizations.js"
import { backup } from "./Backup.js"
import { contacts } from "./Contacts.js"
import { demo } from "./Demo.js"
import { migrateToPostgres } from "./MigrateToPostgres.js"
import { webhook } from "./Webhooks.js"

const org = Options.text("org").pipe(Options.withDescription("The organization's slug"))

const orgCreate = Command.make(
  "create",
  {
    slug: Options.text("slug").pipe(Options.withDescription("URL-safe identifier: lowercase letters, digits, hyphens")),
    name: Options.text("name").pipe(Options.withDescription("Display name"))
  },
  ({ name, slug }) =>
    Effect.gen(function*() {
      const organizations = yield* Organizations
      const created = yield* organizations.create({ slug, name })
      yield* Console.log(`Created organization ${created.slug} (${created.name})`)
    })
).pipe(Command.withDescription("Create an organization"))

const memberAdd = Command.make(
  "add",
  {
    org,
    email: Options.text("email"),
    password: Options.redacted("password").pipe(
      Options.withDescription("At least 8 characters; needed for a new user only (an existing user keeps theirs)"),
      Options.optional
    ),
    role: Options.choice("role", roles),
    firstName: Options.text("first-name").pipe(Options.optional),
    lastName: Options.text("last-name").pipe(Options.optional)
  },
  (input) =>
    Effect.gen(function*() {
      const organizations = yield* Organizations
      const members = yield* Members
      const organization = yield* organizations.get(input.org)
      if (Option.isSome(input.password) && Redacted.value(input.password.value).length < 8) {
        return yield* Effect.fail(new Error("--password must be at least 8 characters"))
      }
      // the operator's own add: unlike POST /member, an existing user joins at once, without an invitation
      const added = yield* members.addDirectly(organization, {
        email: input.email,
        password: input.password,
        firstName: Option.getOrNull(input.firstName),
        lastName: Option.getOrNull(input.lastName),
        role: input.role
      }).pipe(Effect.catchTag("InvalidRequest", () => Effect.fail(new Error("--password is required for a new user"))))
      const how = added.createdUser ? "new user" : "existing user, added directly; their password is unchanged"
      yield* Console.log(`Added ${input.email} to ${organization.slug} as ${input.role} (user ${added.userId}, ${how})`)
    })
).pipe(Command.withDescription(
  "Add a member to an organization: a new email becomes a user with --password; an existing user is added directly"
))

const memberList = Command.make("list", { org }, (input) =>
  Effect.gen(function*() {
    const organizations = yield* Organizations
    const organization = yield* organizations.get(input.org)
    const members = yield* (yield* Members).active(organization.id)
    for (const m of members) {
      yield* Console.log([m.userId, m.role.padEnd(11), m.email, [m.firstName, m.lastName].filter(Boolean).join(" ")].join("  "))
    }
  })).pipe(Command.withDescription("List an organization's members"))

const memberRole = Command.make(
  "role",
  { org, userId: Args.text({ name: "userId" }), role: Options.choice("role", roles) },
  (input) =>
    Effect.gen(function*() {
      const organization = yield* (yield* Organizations).get(input.org)
      yield* (yield* Members).changeRole(organization.id, input.userId, input.role)
      yield* Console.log(`${input.userId} is now ${input.role} in ${organization.slug}`)
    })
).pipe(Command.withDescription("Change a member's role (the last Super Admin keeps theirs)"))

const memberRemove = Command.make("remove", { org, userId: Args.text({ name: "userId" }) }, (input) =>
  Effect.gen(function*() {
    const organization = yield* (yield* Organizations).get(input.org)
    yield* (yield* Members).remove(organization.id, input.userId)
    yield* Console.log(`Removed ${input.userId} from ${organization.slug}`)
  })).pipe(Command.withDescription("Remove a member; their access ends at once (not the last Super Admin)"))

const userSetPassword = Command.make(
  "set-password",
  {
    email: Options.text("email").pipe(Options.withDescription("The user's email (any case)")),
    password: Options.redacted("password").pipe(Options.withDescription("The new password: at least 8 characters"))
  },
  (input) =>
    Effect.gen(function*() {
      if (Redacted.value(input.password).length < 8) {
        return yield* Effect.fail(new Error("--password must be at least 8 characters"))
      }
      const done = yield* (yield* Passwords).setPassword(input.email, input.password)
      yield* Console.log(
        `Password of ${done.email} (user ${done.userId}) replaced; ${done.accessTokensEnded} access token(s) ended`
      )
    })
).pipe(Command.withDescription(
  "Set a user's password (the operator's recovery of an account) and end every sign-in of theirs"
))

const tokenCreate = Command.make(
  "create",
  { org, name: Options.text("name").pipe(Options.withDescription("What the token is for")) },
  (input) =>
    Effect.gen(function*() {
      const organizations = yield* Organizations
      const organization = yield* organizations.get(input.org)
      const created = yield* (yield* ApiTokens).createApiToken(organization.id, input.name)
      yield* Console.log(`Token ${created.tokenId} (${created.name}) for ${organization.slug}. It is shown only now:`)
      yield* Console.log(Redacted.value(created.token))
    })
).pipe(Command.withDescription("Create an API token (printed once)"))

const tokenList = Command.make("list", { org }, (input) =>
  Effect.gen(function*() {
    const organizations = yield* Organizations
    const organization = yield* organizations.get(input.org)
    for (const t of yield* (yield* ApiTokens).apiTokens(organization.id)) {
      const state = t.revokedAt === null ? "active " : "revoked"
      yield* Console.log([t.tokenId, state, `created ${t.createdAt}`, `last used ${t.lastUsedAt ?? "never"}`, t.name].join("  "))
    }
  })).pipe(Command.withDescription("List an organization's API tokens (never the tokens themselves)"))

const tokenRevoke = Command.make("revoke", { org, tokenId: Args.text({ name: "tokenId" }) }, (input) =>
  Effect.gen(function*() {
    const organizations = yield* Organizations
    const organization = yield* organizations.get(input.org)
    yield* (yield* ApiTokens).revokeApiToken(organization.id, input.tokenId)
    yield* Console.log(`Revoked ${input.tokenId}`)
  })).pipe(Command.withDescription("Revoke an API token at once"))

export const commands = Command.make("convene").pipe(
  Command.withDescription("Convene admin commands"),
  Command.withSubcommands([
    Command.make("org").pipe(Command.withSubcommands([orgCreate])),
    Command.make("member").pipe(Command.withSubcommands([memberAdd, memberList, memberRole, memberRemove])),
    Command.make("user").pipe(Command.withSubcommands([userSetPassword])),
    Command.make("token").pipe(Command.withSubcommands([tokenCreate, tokenList, tokenRevoke])),
    webhook,
    contacts,
    backup,
    migrateToPostgres,
    demo
  ])
)
