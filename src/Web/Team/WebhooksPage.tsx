/**
 * Team settings › Webhooks (docs/integrators.md#webhooks, docs/integrators.md#the-dashboard): the registered URLs with their state, registering
 * one, its signing secret on request, a test delivery, deleting; and the delivery log with its
 * filters, pages, each delivery's attempts, errors and the start of the receiver's answer, and a
 * retry for those that failed or were cancelled.
 */
import { type Delivery, WebhookType } from "../../Webhooks/Domain.js"
import type { RegistrationSummary } from "../../Webhooks/Registrations.js"
import { Badge, Card, CopyField, EmptyState, RecordTime } from "../Kit/Components.js"
import { ErrorSummary, Field, Select } from "../Kit/Fields.js"
import { count, plural } from "../Kit/Format.js"
import { type FlashView, type Member, PostForm, type Site } from "../Kit/Layout.js"
import { DeliveryLog, FollowedDelivery } from "./DeliveryLog.js"
import { TeamPage } from "./Tabs.js"
import { type LogView, typeSummary } from "./WebhookLog.js"

const typeOptions = WebhookType.literals.map((t) => ({ value: t, label: `${t}: ${typeSummary[t]}` }))

export interface RegisterForm {
  readonly values: { readonly webhook: string; readonly type: string }
  readonly errors: ReadonlyArray<{ readonly field: "webhook" | "type"; readonly message: string }>
}

export interface WebhooksView {
  readonly site: Site
  readonly member: Member
  readonly flash: FlashView | null
  readonly registrations: ReadonlyArray<RegistrationSummary>
  readonly log: LogView
  /** A delivery followed at the top of the page (`?delivery=`): a test just sent, a retry. */
  readonly followed?: Delivery | undefined
  /** A signing secret asked for: shown in this answer only. */
  readonly revealed?: { readonly registration: RegistrationSummary; readonly secret: string } | undefined
  readonly form?: RegisterForm | undefined
  /** Whether parts with deliveries under way refresh on their own (not on answers to a POST). */
  readonly live: boolean
}

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
                <td data-label="Created"><RecordTime iso={r.createdAt} /></td>
                <td class="actions-cell"><RegistrationActions site={site} member={member} registration={r} /></td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    )

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
