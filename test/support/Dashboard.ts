/**
 * The dashboard from a test's side (docs/integrators.md#the-dashboard).
 *
 * Over HTTP: a client that signs in through the sign-in form and then behaves as a browser with one
 * session does (its `convene_session` cookie; forms posted with the session's CSRF token and an
 * `Origin`), and members made as the operator's CLI makes them.
 *
 * In Chromium: signing in through the page, watching a page for dialogs and console errors (what an
 * injected script would cause), the page headers every page must carry, and an `Auditor` that runs
 * axe-core on a page, counts its `h1`s and saves a full-page screenshot under `test-artifacts/dashboard/`.
 */
import { Effect, Option, Redacted } from "effect"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { join } from "node:path"
import type { Browser, BrowserContext, Locator, Page, Response } from "playwright-core"
import { expect } from "vitest"
import type { Role } from "../../src/Domain/Role.js"
import type { OrganizationRowId } from "../../src/Domain/RowIds.js"
import { Members } from "../../src/Organizations/Members.js"
import type { TestServerShape } from "./TestServer.js"

// ---- pages over HTTP ---------------------------------------------------------------------------

export const SESSION_COOKIE = "convene_session"

export interface PageReply {
  readonly status: number
  readonly html: string
  readonly location: string | null
  readonly headers: Headers
}

/** A form's fields, in order (a name may repeat). */
export type FormFields = Readonly<Record<string, string>> | ReadonlyArray<readonly [string, string]>

export interface PostOptions {
  /** The `_csrf` field to send instead of the session's token; `null` sends none. */
  readonly csrf?: string | null
  /** The `Origin` header instead of the client's; `null` sends none. */
  readonly origin?: string | null
  readonly referer?: string
  /** More headers (`accept`, `idempotency-key`: the door's JSON writes). */
  readonly headers?: Readonly<Record<string, string>>
}

export interface Account {
  readonly email: string
  readonly password: string
}

/** One browser's view of the dashboard over HTTP: a cookie jar of one session. */
export interface DashboardClient {
  readonly url: string
  /** The session cookie's value, once signed in. */
  readonly session: () => string | undefined
  readonly get: (path: string) => Effect.Effect<PageReply>
  /** The session's CSRF token, as its pages carry it ("" when not signed in). */
  readonly csrf: Effect.Effect<string>
  /** A form post from the service's own pages, with the session's CSRF token. */
  readonly post: (path: string, fields?: FormFields, options?: PostOptions) => Effect.Effect<PageReply>
  /** Signs in through the sign-in form; the session is kept when it works (303). */
  readonly signIn: (account: Account, next?: string) => Effect.Effect<PageReply>
}

export const cookieOf = (headers: Headers, name: string) =>
  headers.getSetCookie().map((c) => c.split(";")[0]!).find((c) => c.startsWith(`${name}=`))?.slice(name.length + 1)

export const csrfOf = (html: string) => /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? ""

export const decodeEntities = (text: string) =>
  text.replace(/&(lt|gt|quot|#39|#x27|amp);/g, (_, e: string) => ({ lt: "<", gt: ">", quot: "\"", "#39": "'", "#x27": "'", amp: "&" })[e]!)

/** What a page says: tags dropped, entities decoded, white space folded. */
export const textOf = (html: string) => decodeEntities(html.replace(/<[^>]+>/g, " ")).replace(/\s+/g, " ")

const request = (url: string, init: RequestInit) =>
  Effect.promise(async (): Promise<PageReply> => {
    const response = await fetch(url, { ...init, redirect: "manual" })
    return { status: response.status, html: await response.text(), location: response.headers.get("location"), headers: response.headers }
  })

/**
 * A client of the dashboard at `url` that has not signed in yet. Forms carry `Origin: origin`
 * (default: the address the client talks to, as a browser sends it).
 */
export const dashboardClient = (url: string, defaults: { readonly origin?: string } = {}): DashboardClient => {
  const origin = defaults.origin ?? url
  let session: string | undefined
  let csrf: string | undefined
  const cookie = (): Record<string, string> => (session === undefined ? {} : { cookie: `${SESSION_COOKIE}=${session}` })
  const get = (path: string) => request(url + path, { headers: cookie() })
  const token = Effect.suspend(() =>
    csrf !== undefined
      ? Effect.succeed(csrf)
      // the account page is every signed-in user's, a member of no organization included
      : Effect.map(get("/app/account"), (page) => (csrf = csrfOf(page.html) || undefined) ?? "")
  )
  const self: DashboardClient = {
    url,
    session: () => session,
    get,
    csrf: token,
    post: (path, fields = {}, options = {}) =>
      Effect.gen(function*() {
        const sent = options.csrf === undefined ? yield* token : options.csrf
        const pairs = Array.isArray(fields) ? fields as ReadonlyArray<readonly [string, string]> : Object.entries(fields)
        const headers: Record<string, string> = { ...cookie(), "content-type": "application/x-www-form-urlencoded" }
        const sentOrigin = options.origin === undefined ? origin : options.origin
        if (sentOrigin !== null) headers["origin"] = sentOrigin
        if (options.referer !== undefined) headers["referer"] = options.referer
        Object.assign(headers, options.headers ?? {})
        const body = new URLSearchParams([...(sent === null ? [] : [["_csrf", sent]]), ...pairs.map(([k, v]) => [k, v])])
        return yield* request(url + path, { method: "POST", headers, body: body.toString() })
      }),
    signIn: (account, next = "/app/events") =>
      Effect.gen(function*() {
        const form = yield* request(`${url}/app/login`, {})
        const signInCookie = cookieOf(form.headers, "convene_signin")
        expect(signInCookie, "the sign-in page sets its form cookie").toBeDefined()
        const reply = yield* request(`${url}/app/login`, {
          method: "POST",
          headers: { origin, cookie: `convene_signin=${signInCookie}`, "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({ _csrf: csrfOf(form.html), email: account.email, password: account.password, next }).toString()
        })
        const started = cookieOf(reply.headers, SESSION_COOKIE)
        if (reply.status === 303 && started !== undefined && started !== "") {
          session = started
          csrf = undefined
        }
        return reply
      })
  }
  return self
}

/** A client signed in as `account` (the sign-in must work). */
export const signIn = (url: string, account: Account, options: { readonly origin?: string; readonly next?: string } = {}) =>
  Effect.gen(function*() {
    const client = dashboardClient(url, options.origin === undefined ? {} : { origin: options.origin })
    const reply = yield* client.signIn(account, options.next)
    expect(reply.status, `sign-in of ${account.email}: ${textOf(reply.html)}`).toBe(303)
    expect(client.session()).toBeDefined()
    expect(yield* client.csrf, "the session's pages carry its CSRF token").not.toBe("")
    return client
  })

// ---- organizations and members -----------------------------------------------------------------

let counter = 0
/** A label unique in this test run. */
export const unique = (label: string) => `${label}-${process.pid}-${++counter}`

export interface Organization {
  readonly id: OrganizationRowId
  readonly slug: string
  readonly name: string
  /** An API token of the organization (role Admin). */
  readonly token: string
}

/** A new organization with its API token, as the admin CLI makes them. */
export const newOrganization = (server: Pick<TestServerShape, "organization">, label: string) =>
  Effect.gen(function*() {
    const slug = unique(label)
    const created = yield* server.organization(slug)
    return { id: created.id, slug, name: slug, token: created.token } satisfies Organization
  })

export interface MemberAccount extends Account {
  readonly userId: string
  readonly role: Role
  readonly firstName: string
  readonly lastName: string
}

/** A member added directly, as the operator's CLI adds one (a new user with a password). */
export const addMember = (
  organization: Pick<Organization, "id" | "slug" | "name">,
  role: Role,
  fields: { readonly email?: string; readonly password?: string; readonly firstName?: string; readonly lastName?: string } = {}
) =>
  Effect.gen(function*() {
    const email = fields.email ?? `${unique(role.replace(" ", "").toLowerCase())}@${organization.slug}.example`
    const password = fields.password ?? `password of ${email}`
    const firstName = fields.firstName ?? "Pat"
    const lastName = fields.lastName ?? role
    const added = yield* (yield* Members).addDirectly(organization, {
      email,
      password: Option.some(Redacted.make(password)),
      firstName,
      lastName,
      role
    }).pipe(Effect.orDie)
    return { email, password, userId: added.userId, role, firstName, lastName } satisfies MemberAccount
  })

// ---- Chromium ------------------------------------------------------------------------------------

/** The headers every page carries (docs/integrators.md#the-dashboard); `label` names the page in a failure. */
export const expectPageHeaders = (headers: Readonly<Record<string, string>>, label: string, options: { readonly soft?: boolean } = {}) => {
  const check = options.soft ? expect.soft : expect
  const csp = headers["content-security-policy"] ?? ""
  check(csp, `${label}: Content-Security-Policy`).not.toBe("")
  const directive = (name: string) => csp.split(";").map((d) => d.trim()).find((d) => d.split(/\s+/)[0] === name)
  const scripts = directive("script-src") ?? directive("default-src") ?? ""
  check(scripts, `${label}: a script source is set`).not.toBe("")
  check(scripts, `${label}: scripts`).not.toMatch(/'unsafe-inline'|'unsafe-eval'|\*/)
  check(directive("frame-ancestors"), `${label}: frame-ancestors`).toBe("frame-ancestors 'none'")
  check(headers["x-content-type-options"], `${label}: X-Content-Type-Options`).toBe("nosniff")
  check(headers["referrer-policy"], `${label}: Referrer-Policy`).toBe("same-origin")
}

/** The same check for a `fetch` answer. */
export const expectFetchedPageHeaders = (headers: Headers, label: string) => {
  const all: Record<string, string> = {}
  headers.forEach((value, name) => (all[name] = value))
  expectPageHeaders(all, label)
}

export interface Dialog {
  readonly type: string
  readonly message: string
}

/** What happened on a page that a test did not ask for: dialogs, console errors, uncaught exceptions. */
export interface Watched {
  readonly dialogs: Array<Dialog>
  readonly errors: Array<string>
}

/**
 * Records every dialog and console error of `page`. `confirm` dialogs (the dashboard's own
 * "are you sure?") are accepted; any other dialog (an `alert` an injected script would open) is
 * dismissed and recorded.
 */
export const watch = (page: Page): Watched => {
  const watched: Watched = { dialogs: [], errors: [] }
  page.on("dialog", (dialog) => {
    watched.dialogs.push({ type: dialog.type(), message: dialog.message() })
    void (dialog.type() === "confirm" ? dialog.accept() : dialog.dismiss())
  })
  page.on("console", (message) => {
    if (message.type() === "error") watched.errors.push(message.text())
  })
  page.on("pageerror", (error) => watched.errors.push(`uncaught: ${error.message}`))
  return watched
}

/** Nothing but the dashboard's own confirmations opened, and nothing went wrong in the console. */
export const expectQuiet = (watched: Watched, label: string) => {
  expect(watched.dialogs.filter((d) => d.type !== "confirm"), `${label}: dialogs`).toEqual([])
  expect(watched.errors, `${label}: console errors`).toEqual([])
}

/**
 * The console errors that answers of `status` cause (Chromium reports every 4xx as "Failed to load
 * resource"): exactly those are expected, and then forgotten.
 */
export const expectRefusedLoads = (watched: Watched, status: number) => {
  const refused = `Failed to load resource: the server responded with a status of ${status}`
  expect(watched.errors.filter((e) => !e.startsWith(refused)), "console errors besides the expected refusals").toEqual([])
  watched.errors.splice(0)
}

/** Signs in through the sign-in page, as a person does: fields found by their labels. */
export const signInPage = async (page: Page, url: string, account: Account) => {
  await page.goto(`${url}/app/login`)
  await page.getByLabel("Email").fill(account.email)
  await page.getByLabel("Password").fill(account.password)
  await page.getByRole("button", { name: "Sign in" }).click()
  await page.waitForURL((u) => !u.pathname.startsWith("/app/login"))
}

/** Clicks (or taps) what submits a form or follows a link, and waits for the page it leads to. */
export const follow = async (page: Page, target: Locator, how: "click" | "tap" = "click") => {
  await Promise.all([page.waitForEvent("load"), how === "tap" ? target.tap() : target.click()])
}

/** A browser context, signed in as `account` through the sign-in page. */
export const signedInContext = async (
  browser: Browser,
  url: string,
  account: Account,
  options: Parameters<Browser["newContext"]>[0] = {}
) => {
  const context = await browser.newContext(options)
  context.setDefaultTimeout(10_000)
  const page = await context.newPage()
  const watched = watch(page)
  await signInPage(page, url, account)
  return { context, page, watched }
}

/** The session cookie a context holds. */
export const sessionCookie = async (context: BrowserContext) =>
  (await context.cookies()).find((c) => c.name === SESSION_COOKIE)?.value

/** The CSRF token of the page shown (every signed-in page has forms carrying it). */
export const pageCsrf = (page: Page) => page.locator("input[name=_csrf]").first().inputValue()

/**
 * A form post made by script from the page (the browser sets `Origin` and the cookie itself), as a
 * forged request from a member's own browser would be. Answers the status, redirects not followed.
 */
export const postFromPage = (page: Page, path: string, fields: ReadonlyArray<readonly [string, string]>) =>
  page.evaluate(async ({ fields, path }) => {
    const response = await fetch(path, { method: "POST", body: new URLSearchParams(fields as Array<[string, string]>), redirect: "manual" })
    // a followed-or-not redirect shows as an opaque answer (status 0)
    return response.type === "opaqueredirect" ? 303 : response.status
  }, { path, fields: fields.map(([k, v]) => [k, v]) })

export const ARTIFACTS = "test-artifacts/dashboard"

/**
 * What looks at a page's markup alone, axe-core and the screenshots, runs on SQLite. `npm test`'s
 * PostgreSQL pass renders the same templates from the same services, so it would only repeat them
 * (axe took 0.5 s of Chromium's time a page, the screenshots 0.4 s, for 80 pages); there it checks
 * what the data and the engine can change: each page's status, its one `h1`, its headers, and that
 * nothing went wrong in the browser.
 */
export const MARKUP_AUDITS = process.env["CONVENE_TEST_ENGINE"] !== "postgres"

let axe: string | undefined
const axeSource = () => (axe ??= readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8"))

/** The axe-core rules the dashboard's accessibility asks for: WCAG 2.0, 2.1 and 2.2 A and AA. */
export const AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"] as const

export interface AxeViolation {
  readonly id: string
  readonly tags: ReadonlyArray<string>
  readonly impact: string | null
  readonly help: string
  readonly nodes: ReadonlyArray<{ readonly target: ReadonlyArray<unknown>; readonly html: string; readonly failureSummary?: string }>
}

export interface Finding {
  /** `wcag`: a rule of `AXE_TAGS` (asserted); `best-practice`: axe's advice beyond WCAG (reported only). */
  readonly kind: "wcag" | "best-practice"
  readonly page: string
  readonly width: number
  readonly rule: string
  readonly impact: string | null
  readonly help: string
  readonly targets: ReadonlyArray<string>
}

const describeViolations = (violations: ReadonlyArray<AxeViolation>) =>
  violations.map((v) =>
    `[${v.impact}] ${v.id}: ${v.help}\n` +
    v.nodes.slice(0, 5).map((n) => `    ${n.target.join(" ")}  ${n.html.slice(0, 160)}\n      ${(n.failureSummary ?? "").replace(/\n/g, "\n      ")}`).join("\n")
  ).join("\n")

/**
 * Runs axe-core on the page that is shown, checks its one `h1`, its headers and that nothing went
 * wrong on it, and saves a full-page screenshot `<name>-<width>.png` (axe and the screenshot on
 * SQLite only: `MARKUP_AUDITS`). It works in a context of its
 * own made with `bypassCSP: true` (for axe's injected script only), signed in with the cookies of
 * the context it was made from; the tests' own contexts keep the CSP.
 */
export class Auditor {
  readonly findings: Array<Finding> = []
  readonly shots: Array<string> = []
  /** Pages audited so far. */
  audited = 0
  private lastDocument: Response | undefined

  private constructor(readonly context: BrowserContext, readonly page: Page, readonly width: number, readonly watched: Watched) {
    page.on("response", (response) => {
      if (response.request().isNavigationRequest() && response.frame() === page.mainFrame()) this.lastDocument = response
    })
  }

  static async open(browser: Browser, width: number, options: { readonly height?: number; readonly mobile?: boolean } = {}) {
    const context = await browser.newContext({
      bypassCSP: true,
      viewport: { width, height: options.height ?? (width < 600 ? 740 : 900) },
      ...(options.mobile ? { isMobile: true, hasTouch: true } : {})
    })
    context.setDefaultTimeout(10_000)
    // axe-core comes with every document of this context (its CSP bypassed for that)
    if (MARKUP_AUDITS) await context.addInitScript({ content: axeSource() })
    const page = await context.newPage()
    return new Auditor(context, page, width, watch(page))
  }

  /** Opens `path` and audits it. */
  async visit(url: string, name: string, options: { readonly status?: number } = {}) {
    const response = await this.page.goto(url)
    // soft, as the audit's checks: a page that fails does not hide the pages after it
    expect.soft(response?.status(), `${name}: status of ${url}`).toBe(options.status ?? 200)
    return this.audit(name, options)
  }

  /** Audits the page shown now; `status`: the page answered that (4xx) status, as expected. */
  async audit(name: string, options: { readonly status?: number } = {}) {
    const page = this.page
    const label = `${name} at ${this.width} px`
    this.audited++
    await page.waitForLoadState("load")
    // soft: every page is audited, and the run reports every page that fails
    expect.soft(await page.locator("h1").count(), `${label}: one h1`).toBe(1)
    if (this.lastDocument !== undefined) expectPageHeaders(await this.lastDocument.allHeaders(), label, { soft: true })
    const result = MARKUP_AUDITS
      ? await page.evaluate(
        (tags) => (window as unknown as { axe: { run: (c: unknown, o: unknown) => Promise<{ violations: Array<unknown> }> } }).axe
          .run(document, { runOnly: { type: "tag", values: tags }, resultTypes: ["violations"] }),
        [...AXE_TAGS, "best-practice"]
      )
      : { violations: [] }
    const all = result.violations as Array<AxeViolation>
    const isWcag = (v: AxeViolation) => v.tags.some((t) => (AXE_TAGS as ReadonlyArray<string>).includes(t))
    const violations = all.filter(isWcag)
    for (const v of all) {
      this.findings.push({
        kind: isWcag(v) ? "wcag" : "best-practice",
        page: name,
        width: this.width,
        rule: v.id,
        impact: v.impact,
        help: v.help,
        targets: v.nodes.map((n) => n.target.join(" "))
      })
    }
    if (MARKUP_AUDITS) {
      mkdirSync(ARTIFACTS, { recursive: true })
      const shot = join(ARTIFACTS, `${name}-${this.width}.png`)
      await page.screenshot({ path: shot, fullPage: true })
      this.shots.push(shot)
    }
    const serious = violations.filter((v) => v.impact === "serious" || v.impact === "critical")
    expect.soft(
      serious.map((v) => `${v.impact} ${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`),
      `${label}: axe violations (serious or critical)\n${describeViolations(serious)}`
    ).toEqual([])
    // the page's own 4xx is reported by Chromium as a failed load: expected; anything else is not
    const refused = options.status !== undefined && options.status >= 400
      ? `Failed to load resource: the server responded with a status of ${options.status}`
      : undefined
    expect.soft(this.watched.dialogs.filter((d) => d.type !== "confirm"), `${label}: dialogs`).toEqual([])
    expect.soft(this.watched.errors.filter((e) => refused === undefined || !e.startsWith(refused)), `${label}: console errors`).toEqual([])
    this.watched.errors.splice(0)
    return violations
  }

  /** Browses as the owner of this session cookie from now on (none: signed out). */
  async useSession(url: string, session: string | undefined) {
    await this.context.clearCookies()
    if (session !== undefined) await this.context.addCookies([{ name: SESSION_COOKIE, value: session, url }])
  }

  async close() {
    await this.context.close()
  }
}

/** Writes what the auditors found (every impact) to `<ARTIFACTS>/<file>`, for the report. */
export const writeFindings = (file: string, auditors: ReadonlyArray<Auditor>) => {
  mkdirSync(ARTIFACTS, { recursive: true })
  writeFileSync(
    join(ARTIFACTS, file),
    JSON.stringify({ shots: auditors.flatMap((a) => a.shots), findings: auditors.flatMap((a) => a.findings) }, null, 2)
  )
}
