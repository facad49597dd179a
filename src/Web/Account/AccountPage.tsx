/** Account: the signed-in user's name, email and organizations, their password, signing out. */
import type { Role } from "../../Domain/Role.js"
import { Badge, Card, PageHeader } from "../Kit/Components.js"
import { ErrorSummary, Field } from "../Kit/Fields.js"
import { PostForm } from "../Kit/Layout.js"
import { SignOutForm, type UserFrame, UserLayout } from "./UserFrame.js"

export interface AccountOrganization {
  readonly slug: string
  readonly name: string
  readonly role: Role
  readonly current: boolean
}

export interface PasswordError {
  readonly field: "currentPassword" | "newPassword" | "confirmPassword"
  readonly message: string
}

export const AccountPage = (props: {
  frame: UserFrame
  name: string
  organizations: ReadonlyArray<AccountOrganization>
  errors?: ReadonlyArray<PasswordError>
}) => {
  const { frame } = props
  const errors = props.errors ?? []
  const errorOf = (field: PasswordError["field"]) => errors.find((e) => e.field === field)?.message
  return (
    <UserLayout frame={frame} title="Account" section="account">
      <PageHeader title="Account" lead="Your own sign-in: the same for every organization you belong to." />
      <div class="grid account">
        <Card title="You" id="you">
          <dl class="details">
            <dt>Name</dt>
            <dd>{props.name === "" ? <span class="muted">not given</span> : props.name}</dd>
            <dt>Email</dt>
            <dd>{frame.email}</dd>
          </dl>
        </Card>
        <Card title="Your organizations" id="organizations">
          {props.organizations.length === 0
            ? (
              <p>
                You are not a member of any organization. To join one, open the invitation link its Super Admin sent you, while signed in
                to this account.
              </p>
            )
            : (
              <ul class="list">
                {props.organizations.map((o) => (
                  <li>
                    <span>
                      <span class="title">{o.name}</span> <span class="muted">· {o.role}</span>
                    </span>
                    {o.current
                      ? <Badge tone="info">Working here now</Badge>
                      : (
                        <PostForm action={frame.site.href("/app/organization")} csrf={frame.csrf} class="inline-form">
                          <input type="hidden" name="slug" value={o.slug} />
                          <button type="submit" class="small secondary" aria-label={`Work in ${o.name}`}>Work here</button>
                        </PostForm>
                      )}
                  </li>
                ))}
              </ul>
            )}
        </Card>
      </div>
      <Card title="Change your password" id="password">
        <p class="muted">
          Changing your password signs you out everywhere: in this browser, on your other devices, and in apps that use your sign-in.
          Then sign in again with the new one.
        </p>
        <ErrorSummary errors={errors} />
        <PostForm action={frame.site.href("/app/account/password")} csrf={frame.csrf} class="password-form">
          {/* lets password managers tie the new password to the account */}
          <input type="text" name="username" value={frame.email} autocomplete="username" readOnly hidden />
          <Field
            name="currentPassword"
            label="Current password"
            type="password"
            autocomplete="current-password"
            required
            error={errorOf("currentPassword")}
          />
          <Field
            name="newPassword"
            label="New password"
            type="password"
            autocomplete="new-password"
            hint="At least 8 characters; a few unrelated words make a strong one."
            required
            maxLength={1024}
            error={errorOf("newPassword")}
          />
          <Field
            name="confirmPassword"
            label="New password again"
            type="password"
            autocomplete="new-password"
            required
            maxLength={1024}
            error={errorOf("confirmPassword")}
          />
          <div class="form-actions">
            <button type="submit">Change password</button>
          </div>
        </PostForm>
      </Card>
      <Card title="Sign out" id="sign-out">
        <p>Sign out of Convene in this browser. Your other devices stay signed in.</p>
        <SignOutForm frame={frame} label="Sign out of this browser" />
      </Card>
    </UserLayout>
  )
}
