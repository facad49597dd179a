/** Team settings › Linked Services › API Keys: the keys, creating one (shown once), revoking. */
import type { ApiTokenInfo } from "../../Auth/ApiTokens.js"
import { Badge, Card, CopyField, EmptyState, RecordTime } from "../Kit/Components.js"
import { ErrorSummary, Field } from "../Kit/Fields.js"
import { type FlashView, type Member, PostForm, type Site } from "../Kit/Layout.js"
import { TeamPage } from "./Tabs.js"

const TokenTime = ({ iso }: { iso: string | null }) => (iso === null ? <span class="muted">never</span> : <RecordTime iso={iso} />)

export const ApiKeysPage = (props: {
  site: Site
  member: Member
  flash: FlashView | null
  tokens: ReadonlyArray<ApiTokenInfo>
  /** A token just created: shown this once. */
  created?: { readonly name: string; readonly token: string } | undefined
  name?: string
  error?: string | undefined
}) => {
  const active = props.tokens.filter((t) => t.revokedAt === null)
  const revoked = props.tokens.filter((t) => t.revokedAt !== null)
  return (
    <TeamPage
      site={props.site}
      member={props.member}
      flash={props.flash}
      tab="api-keys"
      title="API Keys"
      lead="An API key lets your own software use Convene's API for this organization, with the Admin role. Send it as the x-api-key header."
    >
      {props.created
        ? (
          <div class="secret" role="status">
            <h2>Your new key “{props.created.name}”</h2>
            <p><strong>Copy it now: it is shown only this once.</strong> Convene keeps only a fingerprint of it.</p>
            <CopyField id="new-token" label="API key" value={props.created.token} />
            <p><a href={props.site.href("/app/team/api-keys")}>I have stored it safely</a></p>
          </div>
        )
        : null}
      <Card title="Create an API key" id="create-key">
        <ErrorSummary errors={props.error ? [{ field: "name", message: props.error }] : []} />
        <PostForm action={props.site.href("/app/team/api-keys")} csrf={props.member.csrf}>
          <Field name="name" label="Name" hint="What the key is for, such as “CRM sync”." required maxLength={100} value={props.name ?? ""} error={props.error} />
          <button type="submit">Create API key</button>
        </PostForm>
      </Card>
      <Card title="Keys" id="keys">
        {active.length === 0
          ? <EmptyState title="No API keys yet">Create one above when you connect another system to Convene.</EmptyState>
          : (
            <div class="table-wrap">
              <table class="stack">
                <caption class="visually-hidden">Active API keys</caption>
                <thead>
                  <tr><th scope="col">Name</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr>
                </thead>
                <tbody>
                  {active.map((t) => (
                    <tr>
                      <td class="primary">{t.name}<span class="sub mono hide-small">{t.tokenId}</span></td>
                      <td data-label="Created"><TokenTime iso={t.createdAt} /></td>
                      <td data-label="Last used"><TokenTime iso={t.lastUsedAt} /></td>
                      <td class="num">
                        <PostForm
                          action={props.site.href(`/app/team/api-keys/${encodeURIComponent(t.tokenId)}/revoke`)}
                          csrf={props.member.csrf}
                          confirm={`Revoke the key “${t.name}”? Software using it stops working at once.`}
                        >
                          <button type="submit" class="small danger" aria-label={`Revoke ${t.name}`}>Revoke</button>
                        </PostForm>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        {revoked.length > 0
          ? (
            <details>
              <summary>{revoked.length} revoked {revoked.length === 1 ? "key" : "keys"}</summary>
              <ul class="list">
                {revoked.map((t) => (
                  <li>
                    <span>{t.name} <Badge tone="neutral">Revoked</Badge></span>
                    <span class="muted">revoked <TokenTime iso={t.revokedAt} /></span>
                  </li>
                ))}
              </ul>
            </details>
          )
          : null}
      </Card>
    </TeamPage>
  )
}
