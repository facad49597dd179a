/**
 * Team settings › Webhooks (docs/integrators.md#webhooks, docs/integrators.md#the-dashboard): the registered URLs with their state, registering
 * one, its signing secret on request, a test delivery, deleting; and the delivery log with its
 * filters, pages, each delivery's attempts, errors and the start of the receiver's answer, and a
 * retry for those that failed or were cancelled.
 */
import { type Delivery, DeliveryStatus, WebhookType } from "../../Webhooks/Domain.js"
import type { RegistrationSummary } from "../../Webhooks/Registrations.js"
import { count, plural, recordTime } from "../Kit/Format.js"
import { Badge, Card, CopyField, EmptyState, ErrorSummary, Field, type FlashView, type Member, Pager, PostForm, Select, type Site } from "../Html.js"
import { TeamPage } from "./Team.js"

export const DELIVERY_STATUSES = DeliveryStatus.literals
export type DeliveryStatus = Delivery["status"]

export const DELIVERIES_PER_PAGE = 25

/** What each notification type tells, for the form and the tables. */
export const typeSummary: Readonly<Record<Delivery["type"], string>> = {
  EventPerson: "a guest's RSVP or attendance changed",
  GuestList: "guests were added, updated or removed",
  Event: "an event was edited"
}

const typeOptions = WebhookType.literals.map((t) => ({ value: t, label: `${t}: ${typeSummary[t]}` }))

/** Where the member is in the delivery log: kept in every link and in the redirect after a retry. */
export interface LogState {
  readonly status: DeliveryStatus | undefined
  readonly skip: number
}

/** `/app/team/webhooks?status=…&skip=…&delivery=…`, empty values left out. */
export const webhooksPath = (state: LogState, delivery?: string) => {
  const params = new URLSearchParams()
  if (state.status !== undefined) params.set("status", state.status)
  if (state.skip > 0) params.set("skip", String(state.skip))
  if (delivery !== undefined) params.set("delivery", delivery)
  const query = params.toString()
  return `/app/team/webhooks${query === "" ? "" : `?${query}`}`
}

export interface RegisterForm {
  readonly values: { readonly webhook: string; readonly type: string }
  readonly errors: ReadonlyArray<{ readonly field: "webhook" | "type"; readonly message: string }>
}

export interface WebhooksView {
  readonly site: Site
  readonly member: Member
  readonly flash: FlashView | null
  readonly registrations: ReadonlyArray<RegistrationSummary>
  readonly log: { readonly deliveries: ReadonlyArray<Delivery>; readonly total: number; readonly state: LogState }
  /** A delivery followed at the top of the page (`?delivery=`): a test just sent, a retry. */
  readonly followed?: Delivery | undefined
  /** A signing secret asked for: shown in this answer only. */
  readonly revealed?: { readonly registration: RegistrationSummary; readonly secret: string } | undefined
  readonly form?: RegisterForm | undefined
  /** Whether parts with deliveries under way refresh on their own (not on answers to a POST). */
  readonly live: boolean
}

const When = ({ iso }: { iso: string }) => <time datetime={iso} data-local="">{recordTime(iso)}</time>

const STATUS_BADGES = {
  pending: { tone: "info", label: "Pending" },
  delivered: { tone: "good", label: "Delivered" },
  failed: { tone: "bad", label: "Failed" },
  cancelled: { tone: "neutral", label: "Cancelled" }
} as const

export const DeliveryBadge = ({ status }: { status: Delivery["status"] }) => (
  <Badge tone={STATUS_BADGES[status].tone}>{STATUS_BADGES[status].label}</Badge>
)

const registrationNote = (d: Delivery) =>
  d.registration === "deleted" ? "registration deleted" : d.registration === "disabled" ? "registration disabled" : null

/** The last answer in words: `HTTP 503`, or none when no status line came back. */
const lastAnswer = (d: Delivery) => (d.lastStatusCode === null ? (d.attempts === 0 ? "not tried yet" : "no answer") : `HTTP ${d.lastStatusCode}`)

const canRetry = (d: Delivery) => d.status === "failed" || d.status === "cancelled"

const RetryButton = ({ csrf, delivery, site, state }: { site: Site; csrf: string; delivery: Delivery; state: LogState }) => (
  <PostForm action={site.href(`/app/team/webhooks/deliveries/${encodeURIComponent(delivery.deliveryId)}/retry`)} csrf={csrf} class="inline-form">
    {state.status !== undefined ? <input type="hidden" name="status" value={state.status} /> : null}
    {state.skip > 0 ? <input type="hidden" name="skip" value={String(state.skip)} /> : null}
    <button type="submit" class="small secondary" aria-label={`Retry the ${delivery.type} delivery to ${delivery.webhook}`}>Retry</button>
  </PostForm>
)

/** One delivery in full: where the log's details and the followed delivery agree. */
const DeliveryFacts = ({ delivery }: { delivery: Delivery }) => (
  <dl class="details">
    <dt>Status</dt>
    <dd>
      <DeliveryBadge status={delivery.status} />
      {delivery.test ? <> <Badge tone="neutral">Test</Badge></> : null}
    </dd>
    <dt>Attempts</dt>
    <dd>{count(delivery.attempts)}</dd>
    <dt>Last answer</dt>
    <dd>{lastAnswer(delivery)}</dd>
    {delivery.lastError !== null ? [<dt>Last error</dt>, <dd class="webhook-error">{delivery.lastError}</dd>] : null}
    {delivery.nextAttemptAt !== null ? [<dt>Next attempt</dt>, <dd><When iso={delivery.nextAttemptAt} /></dd>] : null}
    <dt>Created</dt>
    <dd><When iso={delivery.createdAt} /></dd>
    <dt>webhook-id</dt>
    <dd class="mono">{delivery.webhookId}</dd>
    {delivery.lastResponse !== null
      ? [
        <dt>Receiver's answer</dt>,
        <dd>
          <pre class="webhook-response">{delivery.lastResponse === "" ? "(empty body)" : delivery.lastResponse}</pre>
        </dd>
      ]
      : null}
  </dl>
)

const FollowedDelivery = ({ delivery, live, member, site, state }: { site: Site; member: Member; delivery: Delivery; state: LogState; live: boolean }) => (
  <section
    id="followed-delivery"
    class={`card followed-delivery status-${delivery.status}`}
    aria-labelledby="followed-delivery-title"
    data-poll={live && delivery.status === "pending" ? "3" : undefined}
  >
    <div class="followed-head">
      <h2 id="followed-delivery-title">
        {delivery.test ? "Test delivery" : "Delivery"} of {delivery.type} to <span class="webhook-url">{delivery.webhook}</span>
      </h2>
      <a class="button small secondary" href={site.href(webhooksPath(state))}>Close</a>
    </div>
    <p class="followed-status" role="status">
      {delivery.status === "pending"
        ? delivery.attempts === 0
          ? "Sending now…"
          : `Attempt ${delivery.attempts} did not get a 2xx answer; Convene tries again.`
        : delivery.status === "delivered"
        ? `Delivered: the receiver answered HTTP ${delivery.lastStatusCode ?? ""}.`
        : delivery.status === "failed"
        ? "Failed: Convene gave up on it. Fix the receiver, then retry."
        : "Cancelled: it will not be sent unless you retry it."}
      {live && delivery.status === "pending" ? <span class="muted"> This updates by itself; without JavaScript, reload the page.</span> : null}
    </p>
    <DeliveryFacts delivery={delivery} />
    {canRetry(delivery) ? <div class="form-actions"><RetryButton site={site} csrf={member.csrf} delivery={delivery} state={state} /></div> : null}
  </section>
)

const RevealedSecret = ({ registration, secret, site }: { site: Site; registration: RegistrationSummary; secret: string }) => (
  <div class="secret" role="status">
    <h2>Signing secret of the {registration.type} webhook</h2>
    <p class="webhook-url">{registration.url}</p>
    <CopyField id="signing-secret" label="Signing secret" value={secret} />
    <p>
      Your receiver checks the <span class="mono">webhook-signature</span> header of each delivery with it (Standard Webhooks), so it knows the
      delivery came from Convene. <strong>Keep it secret</strong>, like a password: store it in your receiver's settings, not in code or chat.
    </p>
    <p><a href={site.href("/app/team/webhooks")}>Hide the secret</a></p>
  </div>
)

const RegistrationActions = ({ member, registration, site }: { site: Site; member: Member; registration: RegistrationSummary }) => {
  const path = (action: string) => site.href(`/app/team/webhooks/${encodeURIComponent(registration.id)}/${action}`)
  const which = `the ${registration.type} webhook for ${registration.url}`
  return (
    <div class="webhook-actions">
      {registration.state === "active"
        ? (
          <PostForm action={path("test")} csrf={member.csrf} class="inline-form">
            <button type="submit" class="small" aria-label={`Send test to ${which}`}>Send test</button>
          </PostForm>
        )
        : (
          <PostForm action={site.href("/app/team/webhooks")} csrf={member.csrf} class="inline-form">
            <input type="hidden" name="webhook" value={registration.url} />
            <input type="hidden" name="type" value={registration.type} />
            <button type="submit" class="small" aria-label={`Enable ${which} again`}>Enable</button>
          </PostForm>
        )}
      <PostForm action={path("secret")} csrf={member.csrf} class="inline-form">
        <button type="submit" class="small secondary" aria-label={`Show secret of ${which}`}>Show secret</button>
      </PostForm>
      <PostForm
        action={path("delete")}
        csrf={member.csrf}
        class="inline-form"
        confirm={`Delete ${which}? It gets no more notifications, and its pending deliveries are cancelled.`}
      >
        <button type="submit" class="small danger-quiet" aria-label={`Delete ${which}`}>Delete</button>
      </PostForm>
    </div>
  )
}

const RegistrationTable = ({ member, registrations, site }: { site: Site; member: Member; registrations: ReadonlyArray<RegistrationSummary> }) =>
  registrations.length === 0
    ? (
      <EmptyState title="No webhooks yet: register a URL to be told when guests answer.">
        <p>Your system then gets a signed POST each time a guest answers, a guest list changes or an event is edited, whichever you choose.</p>
      </EmptyState>
    )
    : (
      <div class="table-wrap">
        <table class="stack webhook-table">
          <caption class="visually-hidden">Registered webhooks</caption>
          <thead>
            <tr>
              <th scope="col">URL</th>
              <th scope="col">Type</th>
              <th scope="col">State</th>
              <th scope="col">Created</th>
              <th scope="col"><span class="visually-hidden">Actions</span></th>
            </tr>
          </thead>
          <tbody>
            {registrations.map((r) => (
              <tr>
                <td class="primary">
                  <span class="webhook-url">{r.url}</span>
                  {r.pending > 0 || r.failed > 0
                    ? (
                      <span class="sub">
                        {[r.pending > 0 ? `${plural(r.pending, "delivery", "deliveries")} pending` : "", r.failed > 0 ? `${count(r.failed)} failed` : ""]
                          .filter((s) => s !== "").join(", ")}
                      </span>
                    )
                    : null}
                </td>
                <td data-label="Type"><span title={typeSummary[r.type]}>{r.type}</span></td>
                <td data-label="State">
                  {r.state === "active" ? <Badge tone="good">Active</Badge> : <Badge tone="warn">Disabled</Badge>}
                </td>
                <td data-label="Created"><When iso={r.createdAt} /></td>
                <td class="actions-cell"><RegistrationActions site={site} member={member} registration={r} /></td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    )

const StatusFilter = ({ site, state }: { site: Site; state: LogState }) => (
  <nav class="status-filter" aria-label="Show deliveries by status">
    <a href={site.href(webhooksPath({ status: undefined, skip: 0 }))} aria-current={state.status === undefined ? "page" : undefined}>All</a>
    {DELIVERY_STATUSES.map((s) => (
      <a href={site.href(webhooksPath({ status: s, skip: 0 }))} aria-current={state.status === s ? "page" : undefined}>
        {STATUS_BADGES[s].label}
      </a>
    ))}
  </nav>
)

const DeliveryLog = (props: { site: Site; member: Member; log: WebhooksView["log"]; live: boolean; hasRegistrations: boolean }) => {
  const { log, site } = props
  const { state } = log
  const pending = log.deliveries.some((d) => d.status === "pending")
  return (
    <section id="delivery-log" class="card" aria-labelledby="delivery-log-title" data-poll={props.live && pending ? "5" : undefined}>
      <h2 id="delivery-log-title">Delivery log</h2>
      <StatusFilter site={site} state={state} />
      {log.deliveries.length === 0
        ? log.total > 0
          ? (
            <EmptyState title="Nothing on this page.">
              <p><a href={site.href(webhooksPath({ ...state, skip: 0 }))}>Back to the first page</a></p>
            </EmptyState>
          )
          : state.status === undefined
          ? (
            <EmptyState title="No deliveries yet.">
              <p>
                {props.hasRegistrations
                  ? "They appear here as guests answer, guest lists change or events are edited. Send a test delivery to see one now."
                  : "Register a URL above; its deliveries appear here."}
              </p>
            </EmptyState>
          )
          : (
            <EmptyState title={`No ${STATUS_BADGES[state.status].label.toLowerCase()} deliveries.`}>
              <p><a href={site.href(webhooksPath({ status: undefined, skip: 0 }))}>Show all deliveries</a></p>
            </EmptyState>
          )
        : (
          <>
            <p class="result-count muted">
              {plural(log.total, "delivery", "deliveries")}
              {state.status === undefined ? "" : ` ${STATUS_BADGES[state.status].label.toLowerCase()}`}, newest first.
            </p>
            <div class="table-wrap">
              <table class="stack delivery-table">
                <caption class="visually-hidden">Webhook deliveries, newest first</caption>
                <thead>
                  <tr>
                    <th scope="col">Delivery</th>
                    <th scope="col">Status</th>
                    <th scope="col" class="num">Attempts</th>
                    <th scope="col">Last answer</th>
                    <th scope="col">Next attempt</th>
                    <th scope="col"><span class="visually-hidden">Actions</span></th>
                  </tr>
                </thead>
                <tbody>
                  {log.deliveries.map((d) => (
                    <tr>
                      <td class="primary">
                        <span class="delivery-type">{d.type}</span>
                        {d.test ? <> <Badge tone="neutral">Test</Badge></> : null}
                        <span class="sub webhook-url">{d.webhook}</span>
                        <span class="sub">Created <When iso={d.createdAt} /></span>
                      </td>
                      <td data-label="Status">
                        <span class="status-cell">
                          <DeliveryBadge status={d.status} />
                          {registrationNote(d) !== null ? <span class="sub">{registrationNote(d)}</span> : null}
                        </span>
                      </td>
                      <td data-label="Attempts" class="num">{count(d.attempts)}</td>
                      <td data-label="Last answer" class="answer-td">
                        <span class="answer-cell">
                          <span>{lastAnswer(d)}</span>
                          {d.lastError !== null && d.lastError !== `HTTP ${d.lastStatusCode}`
                            ? <span class="sub webhook-error">{d.lastError}</span>
                            : null}
                          {d.lastResponse !== null && d.lastResponse !== ""
                            ? (
                              <details class="answer">
                                <summary>Answer<span class="visually-hidden"> of the receiver of {d.webhook}</span></summary>
                                <pre class="webhook-response">{d.lastResponse}</pre>
                              </details>
                            )
                            : null}
                        </span>
                      </td>
                      <td data-label="Next attempt">{d.nextAttemptAt === null ? <span class="muted">none</span> : <When iso={d.nextAttemptAt} />}</td>
                      <td class="actions-cell">
                        <div class="webhook-actions">
                          {canRetry(d) ? <RetryButton site={site} csrf={props.member.csrf} delivery={d} state={state} /> : null}
                          <a class="button small secondary" href={site.href(webhooksPath(state, d.deliveryId))} aria-label={`Details of the ${d.type} delivery to ${d.webhook}`}>
                            Details
                          </a>
                        </div>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <Pager total={log.total} limit={DELIVERIES_PER_PAGE} skip={state.skip} href={(skip) => site.href(webhooksPath({ ...state, skip }))} noun="deliveries" />
          </>
        )}
    </section>
  )
}

export const WebhooksPage = (props: WebhooksView) => {
  const { site } = props
  const errors = props.form?.errors ?? []
  const errorOf = (field: RegisterForm["errors"][number]["field"]) => errors.find((e) => e.field === field)?.message
  const values = props.form?.values ?? { webhook: "", type: "EventPerson" }
  return (
    <TeamPage
      site={site}
      member={props.member}
      flash={props.flash}
      tab="webhooks"
      title="Webhooks"
      lead="Convene tells your other systems what happens, as it happens: a signed POST with JSON to each URL you register."
    >
      {props.revealed ? <RevealedSecret site={site} registration={props.revealed.registration} secret={props.revealed.secret} /> : null}
      {props.followed
        ? <FollowedDelivery site={site} member={props.member} delivery={props.followed} state={props.log.state} live={props.live} />
        : null}
      <Card title="Register a URL" id="register-webhook">
        <ErrorSummary errors={errors} />
        <PostForm action={site.href("/app/team/webhooks")} csrf={props.member.csrf} class="register-webhook">
          <div class="register-fields">
            <Field
              name="webhook"
              label="URL"
              type="url"
              inputMode="url"
              autocomplete="off"
              required
              maxLength={2048}
              placeholder="https://"
              hint="Your receiver's public http(s) address."
              value={values.webhook}
              error={errorOf("webhook")}
            />
            <Select
              name="type"
              label="Tell it when"
              hint="One kind per registration: register the URL again for another."
              options={typeOptions}
              value={values.type}
              error={errorOf("type")}
            />
          </div>
          <div class="form-actions">
            <button type="submit">Register</button>
          </div>
        </PostForm>
      </Card>
      <Card title="Registered URLs" id="registrations">
        <RegistrationTable site={site} member={props.member} registrations={props.registrations} />
        {props.registrations.some((r) => r.state === "disabled")
          ? (
            <p class="hint">
              A disabled URL gets nothing: its receiver answered 410 Gone, or the operator stopped it. Enable it to be told again.
            </p>
          )
          : null}
      </Card>
      <DeliveryLog site={site} member={props.member} log={props.log} live={props.live} hasRegistrations={props.registrations.length > 0} />
    </TeamPage>
  )
}
