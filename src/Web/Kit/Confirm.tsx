/** The page a destructive form leads to when scripts did not ask first (`web.confirm`). */
import { Layout, type Member, PostForm, type Section, type Site } from "./Layout.js"

export const ConfirmPage = (props: {
  site: Site
  member: Member
  title: string
  message: string
  action: string
  confirmLabel: string
  cancel: string
  fields?: ReadonlyArray<readonly [string, string]>
  section?: Section
}) => (
  <Layout site={props.site} member={props.member} title={props.title} {...(props.section ? { section: props.section } : {})}>
    <div class="card message">
      <h1>{props.title}</h1>
      <p>{props.message}</p>
      <PostForm action={props.action} csrf={props.member.csrf}>
        {(props.fields ?? []).map(([name, value]) => <input type="hidden" name={name} value={value} />)}
        <input type="hidden" name="confirm" value="yes" />
        <div class="form-actions">
          <button type="submit" class="danger">{props.confirmLabel}</button>
          <a class="button secondary" href={props.cancel}>Cancel</a>
        </div>
      </PostForm>
    </div>
  </Layout>
)
