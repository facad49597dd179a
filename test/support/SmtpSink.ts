/**
 * A real SMTP server for tests (`smtp-server`), on a loopback port: it keeps every message it
 * accepts, raw and parsed (`mailparser`), and answers as a test tells it to: accept, refuse with a
 * code (451: try later; 550: never), or hang without answering the message.
 */
import { Effect } from "effect"
import { type ParsedMail, simpleParser } from "mailparser"
import type { AddressInfo } from "node:net"
import { SMTPServer } from "smtp-server"

export interface ReceivedEmail {
  readonly raw: Buffer
  readonly from: string
  readonly to: ReadonlyArray<string>
  readonly parsed: ParsedMail
}

/** What the server says to a message: accept it, refuse it with a reply code, or never answer. */
export type SmtpAnswer = "accept" | "hang" | { readonly code: number; readonly message: string }

export interface SmtpSink {
  readonly port: number
  /** `smtp://127.0.0.1:<port>` */
  readonly url: string
  readonly received: Array<ReceivedEmail>
  /** Messages answered so far, accepted or not. */
  readonly answered: () => number
  /** How to answer the `n`th message (1-based; counted over every message, refused ones included). */
  answer: (n: number, recipient: string) => SmtpAnswer
  /** Resolves once at least `count` messages were accepted (or fails after `timeoutMs`). */
  readonly waitFor: (count: number, timeoutMs?: number) => Effect.Effect<ReadonlyArray<ReceivedEmail>>
}

const refusal = (code: number, message: string) => Object.assign(new Error(message), { responseCode: code })

export interface SmtpSinkOptions {
  readonly port?: number
  /** Require this login (AUTH PLAIN or LOGIN, allowed without TLS on loopback). */
  readonly auth?: { readonly user: string; readonly pass: string }
}

export const smtpSink = (options: SmtpSinkOptions = {}) =>
  Effect.acquireRelease(
    Effect.async<{ sink: SmtpSink; server: SMTPServer }>((resume) => {
      let messages = 0
      const sink: SmtpSink = {
        port: 0,
        url: "",
        received: [],
        answered: () => messages,
        answer: () => "accept",
        waitFor: (count, timeoutMs = 20_000) =>
          Effect.gen(function*() {
            const started = Date.now()
            while (sink.received.length < count) {
              if (Date.now() - started > timeoutMs) {
                return yield* Effect.dieMessage(`only ${sink.received.length} of ${count} emails arrived within ${timeoutMs} ms`)
              }
              yield* Effect.sleep("20 millis")
            }
            return sink.received
          })
      }
      const server = new SMTPServer({
        authOptional: options.auth === undefined,
        allowInsecureAuth: true,
        disabledCommands: options.auth === undefined ? ["STARTTLS", "AUTH"] : ["STARTTLS"],
        logger: false,
        closeTimeout: 200,
        onAuth(auth, _session, callback) {
          if (auth.username === options.auth?.user && auth.password === options.auth?.pass) return callback(null, { user: auth.username })
          callback(refusal(535, "Authentication credentials invalid"))
        },
        size: 10 * 1024 * 1024,
        onData(stream, session, callback) {
          const chunks: Array<Buffer> = []
          stream.on("data", (chunk: Buffer) => chunks.push(chunk))
          stream.on("end", () => {
            const to = session.envelope.rcptTo.map((r) => r.address)
            const answer = sink.answer(++messages, to[0] ?? "")
            if (answer === "hang") return
            if (answer !== "accept") return callback(refusal(answer.code, answer.message))
            const raw = Buffer.concat(chunks)
            simpleParser(raw).then(
              (parsed) => {
                sink.received.push({ raw, from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "", to, parsed })
                callback(null, "Message queued")
              },
              (error: Error) => callback(error)
            )
          })
        }
      })
      server.on("error", () => undefined)
      server.listen(options.port ?? 0, "127.0.0.1", () => {
        const port = (server.server.address() as AddressInfo).port
        Object.assign(sink, { port, url: `smtp://127.0.0.1:${port}` })
        resume(Effect.succeed({ sink, server }))
      })
    }),
    ({ server }) => Effect.async<void>((resume) => server.close(() => resume(Effect.void)))
  ).pipe(Effect.map(({ sink }) => sink))
