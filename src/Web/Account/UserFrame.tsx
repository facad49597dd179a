/**
 * The signed-in user's own pages (Account, and an invitation link's page): about the person, not
 * an organization, so a user who belongs to no organization (yet) sees them too, without the
 * dashboard's navigation: the frame they render in.
 */
import type { ComponentChildren } from "preact"
import { FlashMessage, type FlashView, Layout, type Member, PlainLayout, PostForm, type Site } from "../Kit/Layout.js"

/** Who is looking: the member in their current organization, or a user of no organization. */
export interface UserFrame {
  readonly site: Site
  /** None when the user belongs to no organization. */
  readonly member: Member | undefined
  readonly email: string
  readonly csrf: string
  readonly flash: FlashView | null
}

/** Sign out of this browser (works for a user of no organization too); `next` is where signing in again leads. */
export const SignOutForm = ({ frame, label = "Sign out", next }: { frame: UserFrame; label?: string; next?: string }) => (
  <PostForm action={frame.site.href("/app/account/sign-out")} csrf={frame.csrf} class="inline-form">
    {next ? <input type="hidden" name="next" value={next} /> : null}
    <button type="submit" class="secondary">{label}</button>
  </PostForm>
)

/** The dashboard's layout for a member; a plain page with who is signed in for anyone else. */
export const UserLayout = (props: { frame: UserFrame; title: string; section?: "account"; children: ComponentChildren }) =>
  props.frame.member
    ? (
      <Layout site={props.frame.site} member={props.frame.member} title={props.title} flash={props.frame.flash} {...(props.section ? { section: props.section } : {})}>
        {props.children}
      </Layout>
    )
    : (
      <PlainLayout site={props.frame.site} title={props.title} wide>
        <div class="user-bar">
          <span class="brand">Convene</span>
          <span class="muted">Signed in as <strong>{props.frame.email}</strong></span>
          <SignOutForm frame={props.frame} />
        </div>
        <FlashMessage flash={props.frame.flash} />
        {props.children}
      </PlainLayout>
    )
