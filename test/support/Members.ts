/**
 * Organizations, members and invitation links from a test's side (test/api/members.test.ts,
 * test/slow/members-cli.test.ts): organizations made as the operator (admin CLI) makes them,
 * requests signed in as a member, and what the database holds for a user.
 */
import { Effect, Option, Redacted } from "effect"
import { randomBytes } from "node:crypto"
import { Members } from "../../src/Organizations/Members.js"
import { cli } from "./Cli.js"
import { queryDatabase } from "./Engine.js"
import { expectStatus, login } from "./Fixtures.js"
import { type Reply, TestServer } from "./TestServer.js"

let counter = 0
export const next = () => `${process.pid}-${++counter}`

export type Server = TestServer["Type"]
export interface Account {
  readonly email: string
  readonly password: string
}
export interface Org {
  readonly id: number
  readonly slug: string
  readonly token: string
  readonly owner: Account & { readonly userId: string }
}

/** An organization with an API token and a Super Admin, made as the operator (admin CLI) makes them. */
export const organization = (label: string) =>
  Effect.gen(function*() {
    const server = yield* TestServer
    const slug = `${label}-${next()}`
    const created = yield* server.organization(slug)
    const owner = { email: `owner@${slug}.example`, password: `owner password of ${slug}` }
    const added = yield* (yield* Members).addDirectly({ id: created.id, slug, name: slug }, {
      email: owner.email,
      password: Option.some(Redacted.make(owner.password)),
      firstName: "Owner",
      lastName: slug,
      role: "Super Admin"
    }).pipe(Effect.orDie)
    return { id: created.id, slug, token: created.token, owner: { ...owner, userId: added.userId } } satisfies Org
  })

/** Requests signed in as `account`, in `slug` when given (else as the user alone, as invitation links take). */
export const as = (server: Server, account: Account, slug?: string) =>
  Effect.map(login(server, account.email, account.password, slug), (session) => ({ token: null, headers: session.headers }))

export const addMember = (server: Server, org: Org, body: Record<string, unknown>) =>
  Effect.flatMap(as(server, org.owner, org.slug), (owner) => server.request("POST", "/member", { ...owner, body }))

/** The link's token: the last segment of the `inviteUrl` that only the inviting organization's admin is given. */
export const tokenOf = (reply: Reply) => new URL(reply.body.inviteUrl as string).pathname.split("/").pop()!

/** What the link offers, signed in as `account`. */
export const view = (server: Server, account: Account, token: string) =>
  Effect.flatMap(as(server, account), (user) => server.request("GET", `/member/invitations/${token}`, user))

export const accept = (server: Server, account: Account, token: string) =>
  Effect.flatMap(as(server, account), (user) => server.request("POST", `/member/invitations/${token}/accept`, user))

export const membersOf = (server: Server, org: Org) =>
  Effect.flatMap(as(server, org.owner, org.slug), (owner) =>
    Effect.map(server.request("GET", "/member", owner), (reply) => expectStatus(reply, 200).body.members as Array<Record<string, unknown>>))

/** A user who exists already: a member of a fresh organization of their own. */
export const existingUser = (label: string) =>
  Effect.map(organization(`home-${label}`), (home) => ({ ...home.owner, home }))

export const passwordHashOf = (server: Server, email: string) =>
  Effect.promise(async () => {
    const [row] = await queryDatabase<{ password_hash: string }>(
      server.databaseEnv,
      "SELECT password_hash FROM users WHERE email_key = ?",
      [email.toLowerCase()]
    )
    return row!.password_hash
  })

/** Every pending invitation now expires at `at` (written beside the running server, as an operator could). */
export const expireAt = (server: Server, at: string) =>
  Effect.promise(() =>
    queryDatabase(server.databaseEnv, "UPDATE member_invitations SET expires_at = ? WHERE accepted_at IS NULL AND revoked_at IS NULL", [at])
  )

export const loginStatus = (server: Server, email: string, password: string) =>
  Effect.map(server.request("POST", "/login", { token: null, body: { email, password } }), (reply) => reply.status)

/** A token of the links' shape that was never issued: `cvi_` and 43 URL-safe characters. */
export const guessedToken = () => `cvi_${randomBytes(32).toString("base64url")}`

/** The same token with its last character changed. */
export const altered = (token: string) => token.slice(0, -1) + (token.endsWith("A") ? "B" : "A")

/** The admin CLI, run by the operator on the server's database. */
export const operator = (server: Server, ...args: Array<string>) => cli({ ...server.databaseEnv, LOG_LEVEL: "None" }, ...args)
