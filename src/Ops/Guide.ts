/**
 * `/docs/guide`: the integrator's guide (`docs/integrators.md`) as a page of the service, beside the
 * API reference at `/docs`. The Markdown is rendered once, on the first visit, with `marked` and
 * kept for the life of the process; the page is a plain dashboard page (its stylesheet, its
 * headers: no inline script or style, no framing) and needs no network.
 *
 * The guide is the project's own file, but it is rendered as if it were not: raw HTML in it is shown
 * as text, links go only to http(s), mailto and anchors of the page (others are shown as their
 * text), and images are shown as their alt text. Headings get the ids GitHub gives them, so a link
 * such as `docs/integrators.md#errors` works on GitHub and here (`/docs/guide#errors`).
 *
 * The file sits at `docs/integrators.md` in the source tree; the build copies `docs/` to `dist/docs`
 * (scripts/build.mjs), and src/Paths.ts finds it in both.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import { Marked, type Tokens } from "marked"
import { readFile } from "node:fs/promises"
import { h } from "preact"
import { GUIDE_FILE } from "../Paths.js"
import { PlainLayout } from "../Web/Kit/Layout.js"
import { Web } from "../Web/Kit/Web.js"

export { GUIDE_FILE }

const escapeHtml = (text: string) =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;")

/** GitHub's heading anchor: lower case, punctuation dropped, spaces as hyphens. */
export const headingSlug = (text: string): string =>
  text.trim().toLowerCase().replace(/[^\p{L}\p{M}\p{N}\s_-]/gu, "").replace(/\s/g, "-")

const SAFE_LINK = /^(?:https?:\/\/|mailto:|#)/i

/** The guide (or any Markdown) as HTML, with raw HTML escaped and only safe links. */
export const renderGuide = (markdown: string): string => {
  const seen = new Map<string, number>()
  const marked = new Marked({ gfm: true, async: false })
  marked.use({
    renderer: {
      html: ({ text }: Tokens.HTML | Tokens.Tag) => escapeHtml(text),
      heading(this: any, { depth, tokens }: Tokens.Heading) {
        const plain: string = this.parser.parseInline(tokens, this.parser.textRenderer)
        const base = headingSlug(plain.replace(/&[a-z#0-9]+;/gi, (entity) => decodeEntity(entity)))
        const count = seen.get(base) ?? 0
        seen.set(base, count + 1)
        const id = count === 0 ? base : `${base}-${count}`
        return `<h${depth} id="${escapeHtml(id)}">${this.parser.parseInline(tokens)}</h${depth}>\n`
      },
      link(this: any, { href, title, tokens }: Tokens.Link) {
        const text: string = this.parser.parseInline(tokens)
        if (!SAFE_LINK.test(href)) return text
        const titled = title ? ` title="${escapeHtml(title)}"` : ""
        return `<a href="${escapeHtml(href)}"${titled}>${text}</a>`
      },
      image: ({ text }: Tokens.Image) => escapeHtml(text)
    }
  })
  return marked.parse(markdown) as string
}

/** The few entities the text renderer leaves in a heading's text. */
const decodeEntity = (entity: string): string =>
  ({ "&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": "\"", "&#39;": "'" } as Record<string, string>)[entity] ?? ""

export const GuideLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const web = yield* Web
    const guide = yield* Effect.cached(
      Effect.promise(() => readFile(GUIDE_FILE, "utf8")).pipe(Effect.map(renderGuide))
    )
    yield* router.get(
      "/docs/guide",
      Effect.map(guide, (html) =>
        web.render(
          PlainLayout({
            site: web.site,
            title: "Integrator's guide",
            wide: true,
            children: [
              h(
                "nav",
                { class: "guide-links", "aria-label": "API documentation" },
                h("a", { href: web.site.href("/docs") }, "API reference"),
                " · ",
                h("a", { href: web.site.href("/openapi.json") }, "OpenAPI document")
              ),
              // the rendered Markdown: raw HTML in it is escaped and its links are checked (renderGuide)
              h("article", { class: "guide", dangerouslySetInnerHTML: { __html: html } })
            ]
          })
        ))
    )
  })
)
