/** The sign-in page: email and password, the lockout's message, and where the member goes next. */
import { Field } from "../Kit/Fields.js"
import { PlainLayout, type Site } from "../Kit/Layout.js"

export const SignInPage = (props: {
  site: Site
  csrf: string
  next: string
  email?: string
  error?: string | undefined
  notice?: string | undefined
}) => (
  <PlainLayout site={props.site} title="Sign in">
    <div class="card">
      <p class="brand">Convene</p>
      <h1>Sign in</h1>
      <p class="muted">Use the email and password of your Convene account.</p>
      {props.notice ? <div class="flash success" role="status">{props.notice}</div> : null}
      {props.error ? <div class="flash error" role="alert">{props.error}</div> : null}
      <form method="post" action={props.site.href("/app/login")}>
        <input type="hidden" name="_csrf" value={props.csrf} />
        <input type="hidden" name="next" value={props.next} />
        <Field name="email" label="Email" type="email" autocomplete="username" required value={props.email ?? ""} />
        <Field name="password" label="Password" type="password" autocomplete="current-password" required />
        <div class="form-actions">
          <button type="submit" class="big">Sign in</button>
        </div>
      </form>
    </div>
    <p class="muted">
      On the first start, Convene printed the email and password of its first Super Admin. Lost them? The operator can set a
      new password with <span class="mono">convene user set-password</span>.
    </p>
  </PlainLayout>
)
