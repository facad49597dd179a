/**
 * Who sees the demo (`convene demo`, Demo.ts) and where: the Super Admins of the first start's
 * organization (BOOTSTRAP_ORG_SLUG, else `default`) become Super Admins of the demo organization
 * too, so the admin who just signed in finds it in the organization menu; and the server's real
 * address, PUBLIC_BASE_URL or the configured host and port, for the lines the demo prints.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { AppConfig } from "../Config/AppConfig.js"
import { Members } from "../Organizations/Members.js"
import { Organizations } from "../Organizations/Organizations.js"

/** PUBLIC_BASE_URL, else `http://<HOST>:<PORT>` (`localhost` for a host that means every address). */
export const serverAddress = Effect.map(AppConfig, (config) =>
  Option.getOrElse(config.publicBaseUrl, () => {
    const host = config.host === "0.0.0.0" || config.host === "::" || config.host === "" ? "localhost" : config.host
    return `http://${host.includes(":") ? `[${host}]` : host}:${config.port}`
  }).replace(/\/+$/, ""))

/** Adds the first start's Super Admins to `demo`; answers their emails and their organization's slug (none when it does not exist). */
export const shareWithFirstAdmins = (demo: Parameters<Members["addDirectly"]>[0]) =>
  Effect.gen(function*() {
    const config = yield* AppConfig
    const slug = Option.match(config.bootstrap, { onNone: () => "default", onSome: (b) => b.orgSlug })
    const first = yield* (yield* Organizations).find(slug)
    if (Option.isNone(first) || first.value.id === demo.id) return { slug, emails: [] as ReadonlyArray<string> }
    const members = yield* Members
    const admins = (yield* members.active(first.value.id)).filter((m) => m.role === "Super Admin")
    for (const admin of admins) {
      yield* members.addDirectly(demo, { email: admin.email, password: Option.none(), firstName: null, lastName: null, role: "Super Admin" })
    }
    return { slug, emails: admins.map((a) => a.email) }
  })
