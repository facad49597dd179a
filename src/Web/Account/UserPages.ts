/** The routes' view of the signed-in user (UserFrame.tsx): their pages and forms, and the frame of each. */
import * as Effect from "effect/Effect"
import type { FlashView } from "../Kit/Layout.js"
import type { SignedInUser } from "../Kit/Viewer.js"
import { Web } from "../Kit/Web.js"
import type { UserFrame } from "./UserFrame.js"

/** The signed-in user, with their membership in the organization they work in if they have one. */
export type UserView = SignedInUser

/**
 * Pages and forms of the signed-in user, whether or not they belong to an organization (the
 * kit's `userPage`/`userAction`: the same session, rate limit, Origin and CSRF checks as every
 * page, but no stop at "No organization"), and the frame they render in.
 */
export const userPages = Effect.map(Web, (web) => ({
  page: web.userPage,
  action: web.userAction,
  frame: (user: UserView, flash: FlashView | null = user.flash): UserFrame => ({
    site: web.site,
    member: user.viewer?.member,
    email: user.session.email,
    csrf: user.session.csrf,
    flash
  })
}))
