/**
 * Team settings › Members (docs/integrators.md#members-and-invitations, docs/integrators.md#the-dashboard): who belongs to the organization, with which role,
 * and the invitations still open. Admins see it; only a Super Admin gets the controls.
 */
import type { Role } from "../../Domain/Role.js"
import { roles } from "../../Domain/Role.js"
import type { Member as TeamMember } from "../../Organizations/Members.js"
import { Badge, Card, CopyField, EmptyState, RecordTime } from "../Kit/Components.js"
import { ErrorSummary, Field, Select } from "../Kit/Fields.js"
import { type FlashView, type Member, PostForm, type Site } from "../Kit/Layout.js"
import { TeamPage } from "./Tabs.js"

/** What each role may do, in one line (docs/integrators.md#roles). */
export const roleSummary: Readonly<Record<Role, string>> = {
  "Super Admin": "everything, including adding and removing members",
  Admin: "events, webhooks, API keys, custom fields and purchases, besides contacts and guest lists",
  "Team Member": "contacts and guest lists, including check-in at the door",
  Viewer: "reads everything, changes nothing"
}

const roleOptions = roles.map((r) => ({ value: r, label: r }))

export const memberName = (m: Pick<TeamMember, "firstName" | "lastName" | "email">) =>
  [m.firstName, m.lastName].filter((s) => s !== null && s !== "").join(" ") || m.email

export interface AddMemberForm {
  readonly values: { readonly email: string; readonly firstName: string; readonly lastName: string; readonly role: string }
  readonly errors: ReadonlyArray<{ readonly field: "email" | "firstName" | "lastName" | "role" | "password"; readonly message: string }>
}

/** An invitation just made: its link is shown this once. */
export interface NewInvitation {
  readonly email: string
  readonly role: Role
  readonly inviteUrl: string
  readonly expiresAt: string
}

export const MembersPage = (props: {
  site: Site
  member: Member
  flash: FlashView | null
  organizationName: string
  members: ReadonlyArray<TeamMember>
  invitations: ReadonlyArray<TeamMember>
  /** A Super Admin: the page shows the controls. */
  canManage: boolean
  /** The viewer's own user id, to mark their row. */
  you: string
  form?: AddMemberForm | undefined
  invited?: NewInvitation | undefined
}) => {
  const { site } = props
  const errors = props.form?.errors ?? []
  const errorOf = (field: AddMemberForm["errors"][number]["field"]) => errors.find((e) => e.field === field)?.message
  const values = props.form?.values ?? { email: "", firstName: "", lastName: "", role: "Team Member" }
  const superAdmins = props.members.filter((m) => m.role === "Super Admin").length
  return (
    <TeamPage
      site={site}
      member={props.member}
      flash={props.flash}
      tab="members"
      title="Members"
      lead={`Who can sign in to ${props.organizationName}, and what each of them may do.`}
    >
      {props.invited
        ? (
          <div class="secret" role="status">
            <h2>Send this invitation link to {props.invited.email}</h2>
            <p>
              {props.invited.email} already has a Convene account, so they join {props.organizationName} as {props.invited.role}{" "}
              by opening this link <strong>while signed in to their own account</strong> and accepting.
            </p>
            <CopyField id="invite-link" label="Invitation link" value={props.invited.inviteUrl} />
            <p>
              <strong>Copy it now: it is shown only this once.</strong> The link works once and expires on{" "}
              <RecordTime iso={props.invited.expiresAt} />. Lost it? Add them again for a new link; the old one then stops working.
            </p>
            <p><a href={site.href("/app/team/members")}>I have sent it</a></p>
          </div>
        )
        : null}
      {props.canManage
        ? (
          <Card title="Add a member" id="add-member">
            <ErrorSummary errors={errors} />
            <PostForm action={site.href("/app/team/members")} csrf={props.member.csrf} class="add-member">
              <div class="member-fields">
                <Field name="email" label="Email" type="email" autocomplete="off" required maxLength={320} value={values.email} error={errorOf("email")} />
                <Select name="role" label="Role" options={roleOptions} value={values.role} error={errorOf("role")} />
                <Field name="firstName" label="First name" autocomplete="off" maxLength={200} value={values.firstName} error={errorOf("firstName")} />
                <Field name="lastName" label="Last name" autocomplete="off" maxLength={200} value={values.lastName} error={errorOf("lastName")} />
                <Field
                  name="password"
                  label="Initial password"
                  type="password"
                  autocomplete="new-password"
                  required
                  maxLength={1024}
                  hint="At least 8 characters. Give it to them safely; they can change it under Account."
                  error={errorOf("password")}
                />
                <p class="hint add-member-note">
                  Someone who already has a Convene account (in any organization) keeps it: you get an invitation link to send them instead.
                </p>
              </div>
              <div class="form-actions">
                <button type="submit">Add member</button>
              </div>
            </PostForm>
            <details class="roles">
              <summary>What can each role do?</summary>
              <dl class="details">
                {roles.map((r) => [<dt>{r}</dt>, <dd>{roleSummary[r]}</dd>])}
              </dl>
            </details>
          </Card>
        )
        : (
          <p class="read-only-note">
            Only a Super Admin can add, change or remove members. You can see who belongs to {props.organizationName}.
          </p>
        )}
      <Card title={`Members (${props.members.length})`} id="members">
        <div class="table-wrap">
          <table class="stack members">
            <caption class="visually-hidden">Members of {props.organizationName}</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Email</th>
                <th scope="col">Role</th>
                <th scope="col">Status</th>
                {props.canManage ? <th scope="col"><span class="visually-hidden">Actions</span></th> : null}
              </tr>
            </thead>
            <tbody>
              {props.members.map((m) => {
                const name = memberName(m)
                const you = m.userId === props.you
                const only = m.role === "Super Admin" && superAdmins === 1
                return (
                  <tr>
                    <td class="primary">
                      {name}
                      {you ? <span class="muted"> (you)</span> : null}
                      {only && props.canManage ? <span class="sub">The only Super Admin: make someone else Super Admin before changing this.</span> : null}
                    </td>
                    <td data-label="Email" class="email">{m.email}</td>
                    <td data-label="Role">
                      {props.canManage
                        ? (
                          <PostForm action={site.href(`/app/team/members/${encodeURIComponent(m.userId)}/role`)} csrf={props.member.csrf} class="role-form">
                            <label class="visually-hidden" for={`role-${m.userId}`}>Role of {name}</label>
                            <select id={`role-${m.userId}`} name="role">
                              {roles.map((r) => <option value={r} selected={r === m.role}>{r}</option>)}
                            </select>
                            <button type="submit" class="small secondary" aria-label={`Save the role of ${name}`}>Save</button>
                          </PostForm>
                        )
                        : m.role}
                    </td>
                    <td data-label="Status"><Badge tone="good">Active</Badge></td>
                    {props.canManage
                      ? (
                        <td class="num">
                          <PostForm
                            action={site.href(`/app/team/members/${encodeURIComponent(m.userId)}/remove`)}
                            csrf={props.member.csrf}
                            confirm={you
                              ? `Remove yourself from ${props.organizationName}? You lose access to it at once.`
                              : `Remove ${name} from ${props.organizationName}? They lose access at once.`}
                          >
                            <button type="submit" class="small danger-quiet" aria-label={`Remove ${name}`}>Remove</button>
                          </PostForm>
                        </td>
                      )
                      : null}
                  </tr>
                )
              })}
            </tbody>
          </table>
        </div>
      </Card>
      <Card title={`Pending invitations (${props.invitations.length})`} id="invitations">
        {props.invitations.length === 0
          ? (
            <EmptyState title="No pending invitations">
              {props.canManage
                ? <p>When you add someone who already has a Convene account, their invitation waits here until they accept it.</p>
                : null}
            </EmptyState>
          )
          : (
            <div class="table-wrap">
              <table class="stack">
                <caption class="visually-hidden">Invitations not accepted yet</caption>
                <thead>
                  <tr>
                    <th scope="col">Email</th>
                    <th scope="col">Role</th>
                    <th scope="col">Status</th>
                    <th scope="col">Expires</th>
                    {props.canManage ? <th scope="col"><span class="visually-hidden">Actions</span></th> : null}
                  </tr>
                </thead>
                <tbody>
                  {props.invitations.map((i) => (
                    <tr>
                      <td class="primary email">{i.email}</td>
                      <td data-label="Role">{i.role}</td>
                      <td data-label="Status"><Badge tone="warn">Invited</Badge></td>
                      <td data-label="Expires">{i.expiresAt ? <RecordTime iso={i.expiresAt} /> : null}</td>
                      {props.canManage && i.invitationId
                        ? (
                          <td class="num">
                            <PostForm
                              action={site.href(`/app/team/invitations/${encodeURIComponent(i.invitationId)}/withdraw`)}
                              csrf={props.member.csrf}
                              confirm={`Withdraw the invitation of ${i.email}? Their link stops working.`}
                            >
                              <button type="submit" class="small secondary" aria-label={`Withdraw the invitation of ${i.email}`}>Withdraw</button>
                            </PostForm>
                          </td>
                        )
                        : null}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
      </Card>
    </TeamPage>
  )
}
