/**
 * The dashboard's CSV import flow (docs/integrators.md#csv-export-and-import): an upload page with a
 * preview of the column mapping and of the row errors before anything is written, for any kind of
 * import: upload →
 * preview → confirm. It knows nothing of persons or guests: a feature describes its import as an
 * `ImportKind` (its columns, how the file's headers map to them, a dry run and a real import over
 * the CSV text, each as its API endpoint runs them) and registers the routes with `importRoutes`.
 *
 * 1. `GET <path>`: the upload form (a `.csv` file, multipart) and the columns the file may have.
 * 2. `POST <path>`: the file is read (Kit/Upload.ts: 10 MiB and a bit, UTF-8 checked as the API checks
 *    it), its header row checked (a file the import would refuse whole is refused here, with
 *    nothing kept), then kept server-side as a draft (ImportDrafts.ts) and the browser sent on:
 *    without scripts, a browser cannot send the file again with the confirmation.
 * 3. `GET <path>/<draft>`: the preview, from a dry run of the kept file: which field each column
 *    fills (or that it is ignored), the first rows as they will be read, the counts, every row
 *    error. Nothing is written. The confirmation button is disabled, with the reason, while the
 *    file has errors: the organizer fixes the file and uploads it again (step 2).
 * 4. `POST <path>/<draft>`: the real import of the kept file; the draft is deleted, and a flash
 *    message says what happened. If the import finds errors after all (the data changed since the
 *    preview), nothing is written and the preview shows them.
 *    `POST <path>/<draft>/discard` drops the draft.
 */
import type * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import { decodeCsvBytes } from "../../Csv/CsvBody.js"
import { type ImportsBusy, ImportSlots } from "../../Csv/ImportSlots.js"
import { InvalidRequest } from "../../Domain/Errors.js"
import type { Role } from "../../Domain/Role.js"
import { sameSecret } from "../../Domain/Secrets.js"
import { fromOwnPages } from "../../Http/SameOrigin.js"
import { PublicOrigin } from "../../Runtime/PublicOrigin.js"
import { pathParams } from "../Kit/Form.js"
import { readUpload, type UploadedFile, type UploadProblem } from "../Kit/Upload.js"
import type { PageError, Viewer } from "../Kit/Viewer.js"
import { Web } from "../Kit/Web.js"
import { ImportDrafts } from "./ImportDrafts.js"
import { FILE_FIELD, type ImportKind, type ImportResult } from "./ImportKind.js"
import { ImportPreviewPage, type PreviewState } from "./PreviewPage.js"
import { sampleOf } from "./Sample.js"
import { ImportUploadPage } from "./UploadPage.js"

type Router = HttpRouter.HttpRouter.Service<unknown, HttpRouter.HttpRouter.DefaultServices>

/** What a kind may read while it is made: the route's path parameters, the request. */
type KindContext = HttpRouter.RouteContext | HttpServerRequest.HttpServerRequest

export interface ImportRoutesOptions {
  /** The upload page's route (`/app/contacts/import`, `/app/events/:id/guests/import`). */
  readonly route: `/app/${string}`
  /** Who may import (and see the flow's pages). */
  readonly role: Role
  /** The kind, for the member (a path parameter of the route may pick it). */
  readonly kindOf: (viewer: Viewer) => Effect.Effect<ImportKind<any, any>, PageError, KindContext>
}

const uploadProblemText = (problem: UploadProblem) =>
  problem._tag === "TooLarge"
    ? "The file is over 10 MiB: split it into several files and import them one after the other."
    : problem._tag === "TimedOut"
    ? "The file did not arrive in time: check the connection and upload it again."
    : problem.message

const uploadProblemStatus: Record<UploadProblem["_tag"], number> = { TooLarge: 413, TimedOut: 408, Malformed: 400 }

/** The flow's four routes under `options.route` (see the top of this file). */
export const importRoutes = (router: Router, options: ImportRoutesOptions) =>
  Effect.gen(function*() {
    const web = yield* Web
    const drafts = yield* ImportDrafts
    const publicOrigin = yield* PublicOrigin
    const slots = yield* ImportSlots
    /** What an organizer reads when every import slot stayed taken (ImportSlots.ts): a refusal to retry. */
    const BUSY = "Other imports are running right now: try again in a minute"
    const { site } = web
    const { role } = options

    const ownerOf = (viewer: Viewer, kind: ImportKind<any, any>) => ({
      organizationId: viewer.organization.id,
      userId: viewer.session.userId,
      kind: kind.kind
    })

    const uploadPage = (viewer: Viewer, kind: ImportKind<any, any>, error: string | undefined, status: number) =>
      web.render(ImportUploadPage({ site, member: viewer.member, flash: status === 200 ? viewer.flash : null, kind, error }), status)

    const previewPage = (
      viewer: Viewer,
      kind: ImportKind<any, any>,
      draft: { readonly id: string; readonly filename: string },
      state: PreviewState,
      status: number,
      flash = viewer.flash
    ) =>
      web.render(
        ImportPreviewPage({ site, member: viewer.member, flash, kind, draft, state, draftPath: `${kind.path}/${encodeURIComponent(draft.id)}` }),
        status
      )

    /** The preview of a kept file: its mapping and sample, and a dry run (or the import's own result). */
    const stateOf = (kind: ImportKind<any, any>, csv: string, result: Either.Either<ImportResult, InvalidRequest>): PreviewState => {
      const sample = sampleOf(csv, kind.spec, kind.fills)
      if (Either.isLeft(result)) return { _tag: "Refused", message: result.left.message, sample: Either.getOrUndefined(sample) }
      if (Either.isLeft(sample)) return { _tag: "Refused", message: sample.left.message, sample: undefined }
      return { _tag: "Checked", result: result.right, sample: sample.right }
    }

    const draftGone = (viewer: Viewer, kind: ImportKind<any, any>) =>
      web.render(
        ImportUploadPage({
          site,
          member: viewer.member,
          flash: null,
          kind,
          error: "That upload is not kept any more: files wait an hour at most, and only for the member who uploaded them. Upload the file again.",
          gone: true
        }),
        404
      )

    const draftId = Effect.map(pathParams("draft"), ({ draft }) => draft)

    yield* router.get(
      options.route,
      web.page(role, (viewer) => Effect.map(options.kindOf(viewer), (kind) => uploadPage(viewer, kind, undefined, 200)))
    )

    /** The file of an upload whose form was read and checked: decoded, sampled and kept as a draft; or the upload page saying why not. */
    const uploaded = (viewer: Viewer, kind: ImportKind<any, any>, file: UploadedFile) =>
      Effect.gen(function*() {
        const text = decodeCsvBytes(file.bytes)
        if (Either.isLeft(text)) return uploadPage(viewer, kind, `${file.filename || "The file"}: ${text.left.message}`, 400)
        const sample = sampleOf(text.right, kind.spec, kind.fills)
        if (Either.isLeft(sample)) return uploadPage(viewer, kind, `${file.filename || "The file"} cannot be imported: ${sample.left.message}`, 400)
        const id = yield* drafts.save(ownerOf(viewer, kind), { filename: file.filename.slice(0, 255), csv: text.right })
        return web.redirect(`${kind.path}/${encodeURIComponent(id)}`)
      })

    /** A dry run in an import slot; another import racing it is said as a refusal the organizer can retry. */
    const dryRunInSlot = (viewer: Viewer, kind: ImportKind<any, any>, csv: string) =>
      Effect.either(slots.run(viewer.organization.id, kind.dryRun(csv)).pipe(
        Effect.catchTag("Conflict", (error) => Effect.fail(new InvalidRequest({ message: error.message })))
      ))

    /** What the preview says of a dry run that found every slot taken: a refusal to retry. */
    const refusal = (error: InvalidRequest | ImportsBusy) =>
      error._tag === "ImportsBusy" ? new InvalidRequest({ message: `${BUSY}: reload this page then` }) : error

    // a multipart form: the framework's `web.action` reads urlencoded forms, so its two checks
    // (the Origin, the session's CSRF token) are made here, on the upload's own fields, before the
    // upload takes anything; its import slot only once its form has arrived and passed them
    yield* router.post(
      options.route,
      web.page(role, (viewer) =>
        Effect.gen(function*() {
          const request = yield* HttpServerRequest.HttpServerRequest
          if (!fromOwnPages(request.headers, publicOrigin.webOrigin)) return web.formExpired(viewer)
          const kind = yield* options.kindOf(viewer)
          const upload = yield* Effect.either(readUpload(request))
          if (Either.isLeft(upload)) return uploadPage(viewer, kind, uploadProblemText(upload.left), uploadProblemStatus[upload.left._tag])
          if (!sameSecret(upload.right.field("_csrf"), viewer.session.csrf)) return web.formExpired(viewer)
          const file = upload.right.file(FILE_FIELD)
          if (file === undefined) return uploadPage(viewer, kind, "Choose a CSV file to upload.", 400)
          return yield* slots.run(viewer.organization.id, uploaded(viewer, kind, file)).pipe(
            Effect.catchTag("ImportsBusy", () => Effect.succeed(uploadPage(viewer, kind, `${BUSY}. Nothing was uploaded.`, 503)))
          )
        }))
    )

    yield* router.get(
      `${options.route}/:draft`,
      web.page(role, (viewer) =>
        Effect.gen(function*() {
          const kind = yield* options.kindOf(viewer)
          const found = yield* drafts.find(ownerOf(viewer, kind), yield* draftId)
          if (Option.isNone(found)) return draftGone(viewer, kind)
          const draft = found.value
          const result = yield* dryRunInSlot(viewer, kind, draft.csv)
          const busy = Either.isLeft(result) && result.left._tag === "ImportsBusy"
          return previewPage(viewer, kind, draft, stateOf(kind, draft.csv, Either.mapLeft(result, refusal)), busy ? 503 : 200)
        }))
    )

    yield* router.post(
      `${options.route}/:draft`,
      web.action(role, (viewer) =>
        Effect.gen(function*() {
          const kind = yield* options.kindOf(viewer)
          const owner = ownerOf(viewer, kind)
          const found = yield* drafts.find(owner, yield* draftId)
          if (Option.isNone(found)) return draftGone(viewer, kind)
          const draft = found.value
          const outcome = yield* Effect.either(slots.run(viewer.organization.id, kind.run(draft.csv)))
          if (Either.isLeft(outcome)) {
            const error = outcome.left
            if (error._tag === "ImportsBusy") {
              return previewPage(viewer, kind, draft, stateOf(kind, draft.csv, Either.left(new InvalidRequest({ message: BUSY }))), 503, {
                kind: "error",
                message: `Nothing was imported: ${BUSY.toLowerCase()}.`
              })
            }
            if (error._tag === "Conflict") {
              const dry = Either.mapLeft(yield* dryRunInSlot(viewer, kind, draft.csv), refusal)
              return previewPage(viewer, kind, draft, stateOf(kind, draft.csv, dry), 409, {
                kind: "error",
                message: `Nothing was imported: ${error.message}.`
              })
            }
            return previewPage(viewer, kind, draft, stateOf(kind, draft.csv, Either.left(error)), 400, null)
          }
          const result = outcome.right
          if (result.errors.length > 0) {
            return previewPage(viewer, kind, draft, stateOf(kind, draft.csv, Either.right(result)), 422, {
              kind: "error",
              message: "Nothing was imported: the file has errors now (the data changed since the preview). Fix them and upload the file again."
            })
          }
          yield* drafts.remove(owner, draft.id)
          const done = kind.done(result, draft.filename)
          return yield* web.flashTo(viewer, "success", done.message, done.redirect)
        }))
    )

    yield* router.post(
      `${options.route}/:draft/discard`,
      web.action(role, (viewer) =>
        Effect.gen(function*() {
          const kind = yield* options.kindOf(viewer)
          yield* drafts.remove(ownerOf(viewer, kind), yield* draftId)
          return yield* web.flashTo(viewer, "success", "Import cancelled: the uploaded file was discarded, and nothing was imported.", kind.path)
        }))
    )
  })
