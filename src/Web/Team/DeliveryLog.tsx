/**
 * Team settings › Webhooks: the delivery log with its filters and pages, each delivery's attempts,
 * errors and the start of the receiver's answer, a retry for those that failed or were cancelled,
 * and the delivery followed at the top of the page (a test just sent, a retry).
 */
import type { Delivery } from "../../Webhooks/Domain.js"
import { Badge, EmptyState, Pager, RecordTime } from "../Kit/Components.js"
import { count, plural } from "../Kit/Format.js"
import { type Member, PostForm, type Site } from "../Kit/Layout.js"
import { DELIVERIES_PER_PAGE, DELIVERY_STATUSES, type LogState, type LogView, webhooksPath } from "./WebhookLog.js"

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
    {delivery.nextAttemptAt !== null ? [<dt>Next attempt</dt>, <dd><RecordTime iso={delivery.nextAttemptAt} /></dd>] : null}
    <dt>Created</dt>
    <dd><RecordTime iso={delivery.createdAt} /></dd>
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

export const FollowedDelivery = ({ delivery, live, member, site, state }: { site: Site; member: Member; delivery: Delivery; state: LogState; live: boolean }) => (
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

export const DeliveryLog = (props: { site: Site; member: Member; log: LogView; live: boolean; hasRegistrations: boolean }) => {
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
                        <span class="sub">Created <RecordTime iso={d.createdAt} /></span>
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
                      <td data-label="Next attempt">{d.nextAttemptAt === null ? <span class="muted">none</span> : <RecordTime iso={d.nextAttemptAt} />}</td>
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
