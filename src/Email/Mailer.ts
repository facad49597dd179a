/**
 * Sending one email over SMTP (docs/integrators.md#email-invitations), for the outbox's email channel. Nodemailer's pooled
 * transport keeps up to the SMTP server's share of the dispatcher's slots (a quarter of
 * `WEBHOOK_CONCURRENCY`) connections open, so sending many costs one handshake per connection, not
 * per email. Each attempt is bounded by `WEBHOOK_TIMEOUT` (the outbox's per-attempt timeout): the
 * connection, greeting and socket timeouts, and a deadline over the whole send.
 *
 * What the server answers decides what follows: a permanent refusal of the message (a 5xx reply
 * to the envelope or the data) ends it `failed` at once; anything else (a 4xx, no connection, a
 * timeout, a refused login, a 5xx greeting) is the server's state rather than the message's, and
 * is retried on the schedule.
 */
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { createTransport } from "nodemailer"
import { parseConnectionUrl } from "nodemailer/lib/shared"
import { AppConfig } from "../Config/AppConfig.js"
import { perDestination } from "../Outbox/Fairness.js"
import type { EmailSettings } from "../Config/EmailSettings.js"
import { countEmailSent } from "../Telemetry/Metrics.js"

export const EmailAttachment = Schema.Struct({
  filename: Schema.String,
  contentType: Schema.String,
  /** The content as text, or base64 when `encoding` says so (an image). */
  content: Schema.String,
  encoding: Schema.optional(Schema.Literal("base64")),
  /** The Content-ID an HTML part refers to (`<img src="cid:…">`): an inline image. */
  cid: Schema.optional(Schema.String)
})
export type EmailAttachment = typeof EmailAttachment.Type

/** An email as the outbox keeps it. */
export interface OutgoingEmail {
  /** The Message-ID header without angle brackets: the same for every attempt. */
  readonly messageId: string
  readonly to: string
  readonly subject: string
  readonly text: string
  readonly html: string
  readonly attachments: ReadonlyArray<EmailAttachment>
  /** The Reply-To header (an event's `replyTo`: every email about the event carries it); none when null or absent. */
  readonly replyTo?: string | null | undefined
}

export interface Sent {
  /** The server's reply code to the message (250), when it gave one. */
  readonly code: number | null
  /** The server's reply ("250 2.0.0 OK queued as …"). */
  readonly response: string
}

/** A send that did not go through: permanent (a 5xx refusal of the message) or not. */
export class SendFailure extends Data.TaggedError("SendFailure")<{
  readonly permanent: boolean
  readonly code: number | null
  readonly message: string
  readonly response: string | null
}> {}

interface NodemailerError {
  readonly code?: string
  readonly responseCode?: number
  readonly response?: string
  readonly command?: string
  readonly message?: string
}

/** What a refused or broken send means: permanent only when the server refused this message for good. */
export const failureOf = (error: unknown): SendFailure => {
  const e = (typeof error === "object" && error !== null ? error : {}) as NodemailerError
  const code = typeof e.responseCode === "number" ? e.responseCode : null
  const refusedMessage = e.code === "EENVELOPE" || e.code === "EMESSAGE"
  const permanent = refusedMessage && (code === null ? e.code === "EENVELOPE" : code >= 500 && code < 600)
  const reason = (e.response ?? e.message ?? String(error)).replace(/\s+/g, " ").trim()
  const step = e.command === undefined || e.command === "" ? "" : ` (${e.command})`
  return new SendFailure({
    permanent,
    code,
    message: `${code === null ? (e.code ?? "SMTP error") : `SMTP ${code}`}${step}: ${reason}`.slice(0, 500),
    response: e.response === undefined ? null : e.response.slice(0, 1024)
  })
}

const transportOptions = (settings: EmailSettings, connections: number, timeout: Duration.Duration) => {
  const millis = Duration.toMillis(timeout)
  const url = new URL(Redacted.value(settings.smtpUrl).trim())
  // nodemailer reads the URL's query (tls.rejectUnauthorized=false, ignoreTLS=true, …) as its own
  // options; the credentials are taken here, percent-decoded
  const fromUrl = parseConnectionUrl(url.toString())
  return {
    ...fromUrl,
    host: url.hostname,
    port: url.port === "" ? (url.protocol === "smtps:" ? 465 : 587) : Number(url.port),
    secure: url.protocol === "smtps:",
    ...(url.username === "" && url.password === ""
      ? {}
      : { auth: { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } }),
    pool: true as const,
    maxConnections: connections,
    maxMessages: 1000,
    connectionTimeout: millis,
    greetingTimeout: millis,
    socketTimeout: millis,
    dnsTimeout: millis,
    // a server that never closes its side after ours holds the socket (and the process, at
    // shutdown) for at most a second
    socketCloseTimeout: 1000,
    // a message taken back by a closed connection is this attempt's failure, retried by the outbox
    maxRequeues: 0,
    disableFileAccess: true,
    disableUrlAccess: true
  }
}

export class Mailer extends Effect.Service<Mailer>()("Convene/Mailer", {
  scoped: Effect.gen(function*() {
    const { email, webhooks } = yield* AppConfig
    const timeout = webhooks.timeout
    const transport = yield* Option.match(email, {
      onNone: () => Effect.succeed(Option.none<ReturnType<typeof createTransport>>()),
      onSome: (settings) =>
        Effect.acquireRelease(
          Effect.sync(() =>
            Option.some(createTransport(transportOptions(settings, perDestination(webhooks.concurrency), timeout)))
          ),
          // at shutdown, after the dispatcher has stopped: sends still hanging are cut (their claims were released)
          (t) => Effect.sync(() => Option.map(t, (x) => x.close({ force: true })))
        )
    })

    /** Sends one email; fails with what the server (or its absence) said. */
    const send = (message: OutgoingEmail): Effect.Effect<Sent, SendFailure> =>
      Option.match(Option.zipWith(email, transport, (settings, t) => ({ settings, t })), {
        onNone: () =>
          Effect.fail(new SendFailure({ permanent: false, code: null, message: "email is not configured (set SMTP_URL and MAIL_FROM)", response: null })),
        onSome: ({ settings, t }) =>
          Effect.tryPromise({
            try: (signal) =>
              t.sendMail({
                from: settings.from,
                to: message.to,
                subject: message.subject,
                text: message.text,
                html: message.html,
                messageId: `<${message.messageId}>`,
                ...(message.replyTo === undefined || message.replyTo === null ? {} : { replyTo: message.replyTo }),
                attachments: message.attachments.map((a) => ({
                  filename: a.filename,
                  contentType: a.contentType,
                  content: a.content,
                  ...(a.encoding === undefined ? {} : { encoding: a.encoding }),
                  ...(a.cid === undefined ? {} : { cid: a.cid })
                })),
                signal
              }),
            catch: failureOf
          }).pipe(
            Effect.timeoutFail({
              duration: timeout,
              onTimeout: () =>
                new SendFailure({ permanent: false, code: null, message: `no answer within ${Duration.format(timeout)}`, response: null })
            }),
            Effect.map((info) => {
              const response = String(info.response ?? "")
              const code = Number(/^(\d{3})/.exec(response)?.[1] ?? Number.NaN)
              return { code: Number.isNaN(code) ? null : code, response: response.slice(0, 1024) }
            }),
            Effect.tap(() => Effect.sync(countEmailSent))
          )
      })

    return {
      /** Whether SMTP_URL and MAIL_FROM are set. */
      configured: Option.isSome(email),
      settings: email,
      send
    } as const
  })
}) {}
